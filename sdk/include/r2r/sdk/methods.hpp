// SPDX-License-Identifier: MIT
// Typed method tables: a plugin class lists its methods once, the SDK parses requests into the
// handler's parameter type and serialises its return value. Wrong handler signatures fail at compile
// time with a message that prints the expected form.
#pragma once

#include <r2r/sdk/host.hpp>

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace r2r::sdk {

namespace detail {
template <class T, class = void>
struct has_from_json : std::false_type {};
template <class T>
struct has_from_json<T, std::void_t<decltype(std::declval<const nlohmann::json&>().template get<T>())>>
    : std::true_type {};

template <class T, class = void>
struct has_to_json : std::false_type {};
template <class T>
struct has_to_json<T, std::void_t<decltype(nlohmann::json(std::declval<const T&>()))>> : std::true_type {};

template <class Sig>
struct handler_traits {
  static constexpr bool valid = false;
};
template <class C, class Resp, class Req>
struct handler_traits<Resp (C::*)(const Req&)> {
  static constexpr bool valid = true;
  static constexpr bool takes_context = false;
  using object = C;
  using request = Req;
  using response = Resp;
};
template <class C, class Resp, class Req>
struct handler_traits<Resp (C::*)(const Req&, call_context&)> : handler_traits<Resp (C::*)(const Req&)> {
  static constexpr bool takes_context = true;
};
}  // namespace detail

/// One entry of a method table: the method's name and a type-erased invoker.
template <class T>
struct method_entry {
  std::string name;
  std::function<nlohmann::json(T&, const nlohmann::json&, call_context&)> invoke;
};

template <class T>
using method_table = std::vector<method_entry<T>>;

/// Binds a member function as a method. Accepted handler forms:
///   Response T::name(const Request&);
///   Response T::name(const Request&, r2r::sdk::call_context&);
/// where Request has from_json and Response has to_json (nlohmann::json itself is fine for both).
template <class Handler>
auto method(std::string name, Handler handler) {
  using traits = detail::handler_traits<Handler>;
  static_assert(traits::valid,
                "r2r::sdk::method: a handler must be `Response T::f(const Request&)` or "
                "`Response T::f(const Request&, r2r::sdk::call_context&)` (non-const member function)");
  if constexpr (traits::valid) {
    using T = typename traits::object;
    using req = std::decay_t<typename traits::request>;
    using resp = std::decay_t<typename traits::response>;
    static_assert(detail::has_from_json<req>::value,
                  "r2r::sdk::method: the request type needs `void from_json(const nlohmann::json&, Request&)` "
                  "(for example NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT)");
    static_assert(detail::has_to_json<resp>::value,
                  "r2r::sdk::method: the response type needs `void to_json(nlohmann::json&, const Response&)`");
    return method_entry<T>{std::move(name),
                           [handler](T& object, const nlohmann::json& request, call_context& ctx) -> nlohmann::json {
                             req typed = request.template get<req>();
                             if constexpr (traits::takes_context) {
                               return nlohmann::json((object.*handler)(typed, ctx));
                             } else {
                               (void)ctx;
                               return nlohmann::json((object.*handler)(typed));
                             }
                           }};
  }
}

}  // namespace r2r::sdk
