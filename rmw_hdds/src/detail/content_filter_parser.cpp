// Copyright 2026 The rmw_hdds authors. Apache-2.0.
#include "detail/content_filter_parser.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <system_error>
#include <utility>

namespace rmw_hdds
{
namespace filter
{
namespace
{
// Nesting (parentheses, NOT) and chains of AND/OR beyond these are refused: the tree is walked
// recursively (here, when binding, when evaluating on an engine thread), and no sensible filter
// comes near them.
constexpr int kMaxDepth = 100;
constexpr int kMaxConnectives = 1000;

enum class Tok : uint8_t
{
  End, Name, Integer, Float, String, Parameter, LParen, RParen, LBracket, RBracket, Dot,
  Op, And, Or, Not, Between, Like, True, False
};

struct Token
{
  Tok kind = Tok::End;
  size_t position = 0;
  size_t length = 0;
  RelOp op = RelOp::Eq;  // Op
  Literal literal;       // Integer, Float, String
  uint32_t parameter = 0;
};

bool is_alpha(char c) {return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';}
bool is_digit(char c) {return c >= '0' && c <= '9';}
bool is_space(char c) {return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';}

bool equals_nocase(const std::string & s, size_t pos, size_t len, const char * word)
{
  size_t i = 0;
  for (; word[i] != '\0'; ++i) {
    if (i >= len) {
      return false;
    }
    char c = s[pos + i];
    if (c >= 'a' && c <= 'z') {
      c = static_cast<char>(c - 'a' + 'A');
    }
    if (c != word[i]) {
      return false;
    }
  }
  return i == len;
}

class Lexer
{
public:
  explicit Lexer(const std::string & text)
  : s_(text) {}

  // The next token, or false and *error.
  bool next(Token * t, SyntaxError * error)
  {
    while (pos_ < s_.size() && is_space(s_[pos_])) {
      ++pos_;
    }
    *t = Token{};
    t->position = pos_;
    if (pos_ >= s_.size()) {
      t->kind = Tok::End;
      return true;
    }
    const char c = s_[pos_];
    const char d = pos_ + 1 < s_.size() ? s_[pos_ + 1] : '\0';
    if (is_alpha(c)) {
      return name(t);
    }
    if (is_digit(c) || ((c == '+' || c == '-') && is_digit(d))) {
      return number(t, error);
    }
    switch (c) {
      case '\'': return string(t, error);
      case '%': return parameter(t, error);
      case '(': return single(t, Tok::LParen);
      case ')': return single(t, Tok::RParen);
      case '[': return single(t, Tok::LBracket);
      case ']': return single(t, Tok::RBracket);
      case '.': return single(t, Tok::Dot);
      case '=': return op(t, RelOp::Eq, 1);
      case '<':
        if (d == '>') {
          return op(t, RelOp::Ne, 2);
        }
        return d == '=' ? op(t, RelOp::Le, 2) : op(t, RelOp::Lt, 1);
      case '>': return d == '=' ? op(t, RelOp::Ge, 2) : op(t, RelOp::Gt, 1);
      case '!':
        if (d == '=') {
          return op(t, RelOp::Ne, 2);
        }
        break;
      default:
        break;
    }
    *error = {pos_, std::string("unexpected character '") + c + "'"};
    return false;
  }

  size_t position() const {return pos_;}

private:
  bool single(Token * t, Tok kind)
  {
    t->kind = kind;
    t->length = 1;
    ++pos_;
    return true;
  }

  bool op(Token * t, RelOp o, size_t len)
  {
    t->kind = Tok::Op;
    t->op = o;
    t->length = len;
    pos_ += len;
    return true;
  }

  bool name(Token * t)
  {
    size_t end = pos_;
    while (end < s_.size() && (is_alpha(s_[end]) || is_digit(s_[end]))) {
      ++end;
    }
    const size_t len = end - pos_;
    static const std::pair<const char *, Tok> keywords[] = {
      {"AND", Tok::And}, {"OR", Tok::Or}, {"NOT", Tok::Not}, {"BETWEEN", Tok::Between},
      {"LIKE", Tok::Like}, {"TRUE", Tok::True}, {"FALSE", Tok::False}};
    t->kind = Tok::Name;
    for (const auto & k : keywords) {
      if (equals_nocase(s_, pos_, len, k.first)) {
        t->kind = k.second;
      }
    }
    if (t->kind == Tok::True || t->kind == Tok::False) {
      t->literal.kind = Literal::Kind::Boolean;
      t->literal.magnitude = t->kind == Tok::True ? 1 : 0;
    }
    t->length = len;
    pos_ = end;
    return true;
  }

  bool number(Token * t, SyntaxError * error)
  {
    const size_t start = pos_;
    size_t p = pos_;
    const bool negative = s_[p] == '-';
    if (s_[p] == '+' || s_[p] == '-') {
      ++p;
    }
    const size_t digits = p;
    bool is_float = false;
    int base = 10;
    if (s_[p] == '0' && p + 1 < s_.size() && (s_[p + 1] == 'x' || s_[p + 1] == 'X')) {
      base = 16;
      p += 2;
      while (p < s_.size() && std::isxdigit(static_cast<unsigned char>(s_[p]))) {
        ++p;
      }
    } else {
      while (p < s_.size() && is_digit(s_[p])) {
        ++p;
      }
      if (p < s_.size() && s_[p] == '.') {
        is_float = true;
        ++p;
        while (p < s_.size() && is_digit(s_[p])) {
          ++p;
        }
      }
      if (p < s_.size() && (s_[p] == 'e' || s_[p] == 'E')) {
        size_t q = p + 1;
        if (q < s_.size() && (s_[q] == '+' || s_[q] == '-')) {
          ++q;
        }
        if (q < s_.size() && is_digit(s_[q])) {
          is_float = true;
          p = q;
          while (p < s_.size() && is_digit(s_[p])) {
            ++p;
          }
        }
      }
    }
    if (p < s_.size() && (is_alpha(s_[p]) || is_digit(s_[p]) || s_[p] == '.')) {
      *error = {start, "malformed number '" + s_.substr(start, p + 1 - start) + "'"};
      return false;
    }
    const char * first = s_.data() + digits + (base == 16 ? 2 : 0);
    const char * last = s_.data() + p;
    if (base == 16 && first == last) {
      *error = {start, "malformed number '" + s_.substr(start, p - start) + "': no hex digit"};
      return false;
    }
    if (is_float) {
      double v = 0.0;
      // from_chars: independent of the C locale (a process may have set a decimal comma).
      const auto r = std::from_chars(s_.data() + digits, last, v);
      if (r.ec != std::errc() || r.ptr != last || std::isinf(v)) {
        *error = {start, "floating-point number '" + s_.substr(start, p - start) +
          "' is out of range"};
        return false;
      }
      t->kind = Tok::Float;
      t->literal.kind = Literal::Kind::Float;
      t->literal.real = negative ? -v : v;
    } else {
      uint64_t v = 0;
      const auto r = std::from_chars(first, last, v, base);
      const uint64_t limit = negative ? uint64_t{1} << 63 : std::numeric_limits<uint64_t>::max();
      if (r.ec != std::errc() || r.ptr != last || v > limit) {
        *error = {start, "integer '" + s_.substr(start, p - start) +
          "' is out of range (64 bits)"};
        return false;
      }
      t->kind = Tok::Integer;
      t->literal.kind = Literal::Kind::Integer;
      t->literal.magnitude = v;
      t->literal.negative = negative && v != 0;
    }
    t->length = p - start;
    pos_ = p;
    return true;
  }

  bool string(Token * t, SyntaxError * error)
  {
    const size_t start = pos_;
    const size_t close = s_.find_first_of("'\n", start + 1);
    if (close == std::string::npos || s_[close] != '\'') {
      *error = {start, "string starting here has no closing quote (')"};
      return false;
    }
    t->kind = Tok::String;
    t->literal.kind = Literal::Kind::String;
    t->literal.text = s_.substr(start + 1, close - start - 1);
    t->length = close + 1 - start;
    pos_ = close + 1;
    return true;
  }

  bool parameter(Token * t, SyntaxError * error)
  {
    const size_t start = pos_;
    size_t p = pos_ + 1;
    while (p < s_.size() && is_digit(s_[p])) {
      ++p;
    }
    if (p == start + 1 || p - start - 1 > 2) {
      *error = {start, "a parameter is % followed by its number, 0 to 99 (e.g. %0)"};
      return false;
    }
    uint32_t n = 0;
    for (size_t i = start + 1; i < p; ++i) {
      n = n * 10 + static_cast<uint32_t>(s_[i] - '0');
    }
    t->kind = Tok::Parameter;
    t->parameter = n;
    t->length = p - start;
    pos_ = p;
    return true;
  }

  const std::string & s_;
  size_t pos_ = 0;
};

class Parser
{
public:
  Parser(const std::string & text, SyntaxError * error)
  : text_(text), lexer_(text), error_(error) {}

  std::unique_ptr<Node> parse_all()
  {
    if (!advance()) {
      return nullptr;
    }
    if (tok_.kind == Tok::End) {
      return fail("the expression is empty");
    }
    auto n = condition(0);
    if (n && tok_.kind != Tok::End) {
      return fail("expected AND, OR or the end of the expression, found " + describe());
    }
    return n;
  }

private:
  std::string describe() const
  {
    if (tok_.kind == Tok::End) {
      return "the end of the expression";
    }
    return "'" + text_.substr(tok_.position, tok_.length) + "'";
  }

  std::unique_ptr<Node> fail(const std::string & message)
  {
    if (!failed_) {
      *error_ = {tok_.position, message};
      failed_ = true;
    }
    return nullptr;
  }

  bool advance()
  {
    if (!lexer_.next(&tok_, error_)) {
      failed_ = true;
      return false;
    }
    return true;
  }

  std::unique_ptr<Node> binary(Node::Kind kind, std::unique_ptr<Node> l, std::unique_ptr<Node> r)
  {
    if (++connectives_ > kMaxConnectives) {
      return fail("the expression has more than 1000 ANDs and ORs");
    }
    auto n = std::make_unique<Node>();
    n->kind = kind;
    n->position = l->position;
    n->left = std::move(l);
    n->right = std::move(r);
    return n;
  }

  std::unique_ptr<Node> condition(int depth)
  {
    auto left = conjunction(depth);
    while (left && tok_.kind == Tok::Or) {
      if (!advance()) {
        return nullptr;
      }
      auto right = conjunction(depth);
      if (!right) {
        return nullptr;
      }
      left = binary(Node::Kind::Or, std::move(left), std::move(right));
    }
    return left;
  }

  std::unique_ptr<Node> conjunction(int depth)
  {
    auto left = negation(depth);
    while (left && tok_.kind == Tok::And) {
      if (!advance()) {
        return nullptr;
      }
      auto right = negation(depth);
      if (!right) {
        return nullptr;
      }
      left = binary(Node::Kind::And, std::move(left), std::move(right));
    }
    return left;
  }

  std::unique_ptr<Node> negation(int depth)
  {
    if (depth >= kMaxDepth) {
      return fail("the expression nests deeper than 100 levels");
    }
    if (tok_.kind == Tok::Not) {
      const size_t position = tok_.position;
      if (!advance()) {
        return nullptr;
      }
      auto inner = negation(depth + 1);
      if (!inner) {
        return nullptr;
      }
      auto n = std::make_unique<Node>();
      n->kind = Node::Kind::Not;
      n->position = position;
      n->left = std::move(inner);
      return n;
    }
    if (tok_.kind == Tok::LParen) {
      if (!advance()) {
        return nullptr;
      }
      auto inner = condition(depth + 1);
      if (!inner) {
        return nullptr;
      }
      if (tok_.kind != Tok::RParen) {
        return fail("expected ')', found " + describe());
      }
      if (!advance()) {
        return nullptr;
      }
      return inner;
    }
    return predicate();
  }

  std::unique_ptr<Node> predicate()
  {
    auto n = std::make_unique<Node>();
    n->position = tok_.position;
    if (!operand(&n->a, "a field name, a literal, a %n parameter, NOT or '('")) {
      return nullptr;
    }
    if (tok_.kind == Tok::Not) {
      n->negated = true;
      if (!advance()) {
        return nullptr;
      }
      if (tok_.kind != Tok::Between && tok_.kind != Tok::Like) {
        return fail("expected BETWEEN or LIKE after NOT, found " + describe());
      }
    }
    if (tok_.kind == Tok::Between) {
      n->kind = Node::Kind::Between;
      if (!advance() || !operand(&n->b, "the low bound of BETWEEN")) {
        return nullptr;
      }
      if (tok_.kind != Tok::And) {
        return fail("expected AND between the bounds of BETWEEN, found " + describe());
      }
      if (!advance() || !operand(&n->c, "the high bound of BETWEEN")) {
        return nullptr;
      }
      return n;
    }
    n->kind = Node::Kind::Compare;
    if (tok_.kind == Tok::Like) {
      n->op = RelOp::Like;
    } else if (tok_.kind == Tok::Op) {
      n->op = tok_.op;
    } else {
      return fail(
        "expected a comparison (=, <>, !=, <, <=, >, >=, LIKE, BETWEEN) after '" +
        n->a.spelling + "', found " + describe());
    }
    const std::string op = text_.substr(tok_.position, tok_.length);
    if (!advance() || !operand(&n->b, "a value after '" + op + "'")) {
      return nullptr;
    }
    return n;
  }

  // Reads one operand; `what` names what was expected, for the error.
  bool operand(Operand * o, const std::string & what)
  {
    if (failed_) {
      return false;
    }
    o->position = tok_.position;
    switch (tok_.kind) {
      case Tok::Integer:
      case Tok::Float:
      case Tok::String:
      case Tok::True:
      case Tok::False:
        o->kind = Operand::Kind::Literal;
        o->literal = tok_.literal;
        o->spelling = text_.substr(tok_.position, tok_.length);
        return advance();
      case Tok::Parameter:
        o->kind = Operand::Kind::Parameter;
        o->parameter = tok_.parameter;
        o->spelling = text_.substr(tok_.position, tok_.length);
        return advance();
      case Tok::Name:
        return field(o);
      default:
        fail("expected " + what + ", found " + describe());
        return false;
    }
  }

  bool field(Operand * o)
  {
    o->kind = Operand::Kind::Field;
    for (;;) {
      if (tok_.kind != Tok::Name) {
        fail("expected a field name after '.', found " + describe());
        return false;
      }
      PathStep step;
      step.name = text_.substr(tok_.position, tok_.length);
      size_t end = tok_.position + tok_.length;
      if (!advance()) {
        return false;
      }
      if (tok_.kind == Tok::LBracket) {
        if (!advance()) {
          return false;
        }
        if (tok_.kind != Tok::Integer || tok_.literal.negative ||
          text_[tok_.position] == '+')
        {
          fail("expected an index (0, 1, ...) after '[', found " + describe());
          return false;
        }
        step.indexed = true;
        step.index = tok_.literal.magnitude;
        if (!advance()) {
          return false;
        }
        if (tok_.kind != Tok::RBracket) {
          fail("expected ']', found " + describe());
          return false;
        }
        end = tok_.position + 1;
        if (!advance()) {
          return false;
        }
      }
      o->path.push_back(std::move(step));
      o->spelling = text_.substr(o->position, end - o->position);
      if (tok_.kind != Tok::Dot) {
        return true;
      }
      if (!advance()) {
        return false;
      }
    }
  }

  const std::string & text_;
  Lexer lexer_;
  SyntaxError * error_;
  Token tok_;
  bool failed_ = false;
  int connectives_ = 0;
};
}  // namespace

std::unique_ptr<Node> parse(const std::string & expression, SyntaxError * error)
{
  Parser parser(expression, error);
  return parser.parse_all();
}

bool parse_literal(const std::string & text, Literal * out, SyntaxError * error)
{
  Lexer lexer(text);
  Token t;
  if (!lexer.next(&t, error)) {
    return false;
  }
  switch (t.kind) {
    case Tok::Integer:
    case Tok::Float:
    case Tok::String:
    case Tok::True:
    case Tok::False:
      break;
    case Tok::End:
      *error = {0, "it is empty"};
      return false;
    default:
      *error = {t.position,
        "it is not a literal: write a number, TRUE, FALSE, or a string in single quotes "
        "('text')"};
      return false;
  }
  Token rest;
  if (!lexer.next(&rest, error)) {
    return false;
  }
  if (rest.kind != Tok::End) {
    *error = {rest.position, "unexpected text after the literal (strings go in single quotes)"};
    return false;
  }
  *out = t.literal;
  return true;
}

const char * to_string(RelOp op)
{
  switch (op) {
    case RelOp::Eq: return "=";
    case RelOp::Ne: return "<>";
    case RelOp::Lt: return "<";
    case RelOp::Le: return "<=";
    case RelOp::Gt: return ">";
    case RelOp::Ge: return ">=";
    case RelOp::Like: return "LIKE";
  }
  return "?";
}
}  // namespace filter
}  // namespace rmw_hdds
