// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// The syntax of content filter expressions: the filter subset of DDS-SQL (DDS 1.4, Annex B),
// parsed into a tree that knows nothing of message types yet (detail/content_filter.hpp binds it
// to one and evaluates it).
//
//   Condition  ::= Condition OR Condition | Condition AND Condition | NOT Condition
//                | '(' Condition ')' | Predicate                  (NOT before AND before OR)
//   Predicate  ::= Operand RelOp Operand
//                | Operand [NOT] BETWEEN Operand AND Operand
//                | Operand [NOT] LIKE Operand
//   RelOp      ::= '=' | '<>' | '!=' | '<' | '<=' | '>' | '>='
//   Operand    ::= FieldName | Literal | '%' n                      (n: 0..99, a parameter)
//   FieldName  ::= Name ['[' index ']'] { '.' Name ['[' index ']'] }   e.g. pose.position.x, a[2]
//   Literal    ::= integer (decimal or 0x hex, optional sign) | float (1.5, -2e3)
//                | 'string' or 'c' (single quotes; no quote inside) | TRUE | FALSE
//
// Keywords are case-insensitive. `!=` and NOT LIKE go beyond Annex B (common extensions);
// TRUE/FALSE are Fast DDS's boolean literals. Annex B's enumerated values have no counterpart:
// ROS 2 message types have no enumerations.
#ifndef RMW_HDDS__DETAIL__CONTENT_FILTER_PARSER_HPP_
#define RMW_HDDS__DETAIL__CONTENT_FILTER_PARSER_HPP_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace rmw_hdds
{
namespace filter
{
struct Literal
{
  enum class Kind : uint8_t {Integer, Float, String, Boolean};
  Kind kind = Kind::Integer;
  bool negative = false;    // Integer: the sign (never set for 0)
  uint64_t magnitude = 0;   // Integer: the absolute value; Boolean: 0 or 1
  double real = 0.0;        // Float
  std::string text;         // String: the characters between the quotes (UTF-8)
};

struct PathStep
{
  std::string name;
  bool indexed = false;
  uint64_t index = 0;
};

struct Operand
{
  enum class Kind : uint8_t {Field, Literal, Parameter};
  Kind kind = Kind::Literal;
  size_t position = 0;          // 0-based offset of its first character in the expression
  std::string spelling;         // as written, for error messages
  std::vector<PathStep> path;   // Field
  Literal literal;              // Literal
  uint32_t parameter = 0;       // Parameter: n of %n
};

enum class RelOp : uint8_t {Eq, Ne, Lt, Le, Gt, Ge, Like};

struct Node
{
  enum class Kind : uint8_t {And, Or, Not, Compare, Between};
  Kind kind = Kind::Compare;
  size_t position = 0;
  std::unique_ptr<Node> left;   // And, Or, Not
  std::unique_ptr<Node> right;  // And, Or
  RelOp op = RelOp::Eq;         // Compare: a op b
  bool negated = false;         // NOT BETWEEN, NOT LIKE
  Operand a;                    // Compare, Between (the value tested)
  Operand b;                    // Compare; Between: the low bound
  Operand c;                    // Between: the high bound
};

struct SyntaxError
{
  size_t position = 0;  // 0-based offset where the problem was found
  std::string message;  // e.g. "expected a value after '>', found '>'"
};

// Parses a whole expression. nullptr and *error on a syntax error.
std::unique_ptr<Node> parse(const std::string & expression, SyntaxError * error);

// Parses a parameter's text (an expression parameter is a literal). false and *error otherwise.
bool parse_literal(const std::string & text, Literal * out, SyntaxError * error);

// The spelling of an operator, for error messages.
const char * to_string(RelOp op);
}  // namespace filter
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__CONTENT_FILTER_PARSER_HPP_
