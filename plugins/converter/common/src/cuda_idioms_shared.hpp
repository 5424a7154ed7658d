// SPDX-License-Identifier: MIT
// port_cuda_idioms for convert_source, which lexes a file once: the port reads the file's tokens
// from `tokens` (lex_code(text)) instead of lexing, and leaves there the tokens of its output text
// (spliced where it rewrote spans, code_tokens.hpp), for the rename pass. The port itself is
// port_cuda_idioms(path, text) exactly; a test checks the two agree.
// THREADING: as port_cuda_idioms.
#pragma once

#include "code_tokens.hpp"

#include <r2r/convert/cuda_idioms.hpp>

#include <string_view>

namespace r2r::plugins::converter {

idiom_port port_cuda_idioms(std::string_view path, std::string_view text, code_tokens& tokens);

}  // namespace r2r::plugins::converter
