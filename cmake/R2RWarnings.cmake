# SPDX-License-Identifier: MIT
# Warnings as errors for every target of this project. Third-party headers come from system include
# directories, so they do not trip these.
add_compile_options(-Wall -Wextra -Werror -Wno-missing-field-initializers
                    "$<$<COMPILE_LANGUAGE:CXX>:-Wshadow=local;-Wnon-virtual-dtor>")
