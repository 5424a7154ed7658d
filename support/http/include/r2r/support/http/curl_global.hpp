// SPDX-License-Identifier: MIT
// libcurl's process-wide initialisation, for every libcurl user of the project (the GET client
// here, the llm backends' transport, the docker sandbox's unix-socket client).
// THREADING: safe to call from any thread, any number of times: curl_global_init is not
// thread-safe on every libcurl build, so it runs once per copy of this library (each plugin links
// its own; libcurl counts the calls) under std::call_once. Never undone: plugin libraries are never
// unloaded (plugin_api/ABI.md).
#pragma once

namespace r2r::support::http {

/// Runs curl_global_init(CURL_GLOBAL_DEFAULT) the first time; throws std::runtime_error when it
/// fails (and again on each later call, as the flag is not set by a throwing call).
void init_libcurl();

}  // namespace r2r::support::http
