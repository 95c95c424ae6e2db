// Copyright 2026 The rmw_hdds authors. Apache-2.0.
// The second translation unit of test_identifier.cpp.
#include "detail/identifier.hpp"

const char * identifier_seen_by_other_unit() {return rmw_hdds::kIdentifier;}
const char * serialization_format_seen_by_other_unit() {return rmw_hdds::kSerializationFormat;}
