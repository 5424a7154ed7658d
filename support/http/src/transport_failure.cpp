// SPDX-License-Identifier: MIT
#include "transport_failure.hpp"

namespace r2r::support::http::detail {

transport_failure classify(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
      return {get_failure::resolve, "cannot resolve the host name (DNS)", "check the URL and the network"};
    case CURLE_COULDNT_RESOLVE_PROXY:
      return {get_failure::resolve, "cannot resolve the proxy's host name",
              "check http_proxy, https_proxy and ALL_PROXY"};
    case CURLE_COULDNT_CONNECT:
      return {get_failure::connect, "cannot connect to the server (refused or unreachable)",
              "check the URL, the network and the proxy variables"};
    case CURLE_OPERATION_TIMEDOUT:
      return {get_failure::timeout, "the download timed out", "retry, or use a nearer server or mirror"};
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_USE_SSL_FAILED:
      return {get_failure::tls, "TLS error (the server's certificate could not be verified or the handshake failed)",
              "check the host's certificate and the system CA store"};
    case CURLE_UNSUPPORTED_PROTOCOL:
      return {get_failure::bad_scheme, "the URL's scheme is not http or https", "give an http:// or https:// URL"};
    case CURLE_URL_MALFORMAT:
      return {get_failure::transport, "the URL is malformed", "give a well-formed http:// or https:// URL"};
    default:
      return {get_failure::transport, "the download failed", "retry"};
  }
}

}  // namespace r2r::support::http::detail
