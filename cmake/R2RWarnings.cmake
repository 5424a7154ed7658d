# SPDX-License-Identifier: MIT
# Warnings as errors for every target of this project. Third-party headers come from system include
# directories, so they do not trip these.
add_compile_options(-Wall -Wextra -Werror -Wshadow=local -Wnon-virtual-dtor -Wno-missing-field-initializers)
