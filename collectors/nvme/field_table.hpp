#pragma once
// Field descriptors for fixed-layout NVMe pages: one row per field says where
// it sits in the page (byte offset, width) and which struct member receives
// it. The decoders apply these tables; tests check them against libnvme's own
// struct layouts, so a wrong offset cannot hide in a long chain of reads.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <tuple>
#include <type_traits>

#include "core/u128.hpp"

namespace nvmond {

// `store` receives the little-endian value read from [offset, offset + width).
template <typename S>
struct FieldSpec {
  const char* name;  // spec name of the field, for tests and docs
  std::size_t offset;
  std::size_t width;  // bytes, 1..16
  void (*store)(S& out, u128 value);
};

namespace field_detail {

template <auto Member>
struct MemberOf;
template <typename S, typename T, T S::*Member>
struct MemberOf<Member> {
  using Struct = S;
  using Type = T;
};

template <auto Member>
void assign(typename MemberOf<Member>::Struct& s, u128 v) {
  s.*Member = static_cast<typename MemberOf<Member>::Type>(v);
}

template <auto Group, auto Member>
void assign_in_group(typename MemberOf<Group>::Struct& s, u128 v) {
  (s.*Group).*Member = static_cast<typename MemberOf<Member>::Type>(v);
}

template <auto Member, std::size_t Index>
void assign_element(typename MemberOf<Member>::Struct& s, u128 v) {
  (s.*Member)[Index] = static_cast<typename MemberOf<Member>::Type::value_type>(v);
}

template <auto Member, std::size_t Row, std::size_t Column>
void assign_cell(typename MemberOf<Member>::Struct& s, u128 v) {
  (s.*Member)[Row][Column] = static_cast<typename MemberOf<Member>::Type::value_type::value_type>(v);
}

}  // namespace field_detail

// consteval: a row whose width does not fit its destination fails to compile.
template <auto Member>
consteval FieldSpec<typename field_detail::MemberOf<Member>::Struct> field(const char* name, std::size_t offset,
                                                                           std::size_t width) {
  if (width == 0 || width > sizeof(typename field_detail::MemberOf<Member>::Type)) {
    throw "field width does not fit its destination member";
  }
  return {name, offset, width, &field_detail::assign<Member>};
}

// A field the struct keeps in a group of fields (SmartLog::thermal).
template <auto Group, auto Member>
consteval FieldSpec<typename field_detail::MemberOf<Group>::Struct> field(const char* name, std::size_t offset,
                                                                          std::size_t width) {
  static_assert(
      std::is_same_v<typename field_detail::MemberOf<Group>::Type, typename field_detail::MemberOf<Member>::Struct>,
      "Member must belong to the group's type");
  if (width == 0 || width > sizeof(typename field_detail::MemberOf<Member>::Type)) {
    throw "field width does not fit its destination member";
  }
  return {name, offset, width, &field_detail::assign_in_group<Group, Member>};
}

template <auto Member, std::size_t Index>
consteval FieldSpec<typename field_detail::MemberOf<Member>::Struct> element(const char* name, std::size_t offset,
                                                                             std::size_t width) {
  using M = field_detail::MemberOf<Member>;
  if (width == 0 || width > sizeof(typename M::Type::value_type) || Index >= std::tuple_size_v<typename M::Type>) {
    throw "element width or index does not fit its destination";
  }
  return {name, offset, width, &field_detail::assign_element<Member, Index>};
}

// One cell of a two-dimensional array member (a table of counters).
template <auto Member, std::size_t Row, std::size_t Column>
consteval FieldSpec<typename field_detail::MemberOf<Member>::Struct> cell(const char* name, std::size_t offset,
                                                                          std::size_t width) {
  using M = field_detail::MemberOf<Member>;
  using RowType = typename M::Type::value_type;
  if (width == 0 || width > sizeof(typename RowType::value_type) || Row >= std::tuple_size_v<typename M::Type> ||
      Column >= std::tuple_size_v<RowType>) {
    throw "cell width or index does not fit its destination";
  }
  return {name, offset, width, &field_detail::assign_cell<Member, Row, Column>};
}

// The caller has checked that `page` covers every row.
template <typename S>
void apply_fields(std::span<const FieldSpec<S>> table, std::span<const std::uint8_t> page, S& out) {
  for (const auto& f : table) f.store(out, read_le(page, f.offset, f.width));
}

}  // namespace nvmond
