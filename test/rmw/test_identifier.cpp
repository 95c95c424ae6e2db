// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// rmw's RMW_CHECK_TYPE_IDENTIFIERS_MATCH compares identifier pointers, so every translation unit
// of rmw_hdds must see kIdentifier at one address. This test is two translation units built with
// -fno-merge-constants (CMakeLists.txt): identical string literals are then not merged by the
// linker, as under ASan, and an identifier that is a pointer to a literal per unit would differ.
#include <gtest/gtest.h>

#include "detail/identifier.hpp"

const char * identifier_seen_by_other_unit();
const char * serialization_format_seen_by_other_unit();

TEST(Identifier, OneAddressInEveryTranslationUnit)
{
  EXPECT_EQ(static_cast<const void *>(rmw_hdds::kIdentifier),
    static_cast<const void *>(identifier_seen_by_other_unit()));
  EXPECT_EQ(static_cast<const void *>(rmw_hdds::kSerializationFormat),
    static_cast<const void *>(serialization_format_seen_by_other_unit()));
  EXPECT_STREQ("rmw_hdds", rmw_hdds::kIdentifier);
}
