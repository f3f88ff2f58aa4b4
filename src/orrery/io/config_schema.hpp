#pragma once
// The configuration schema: every key of the TOML config with its type, its
// default, its documentation, what it accepts, and where it goes in the
// RunConfig. The CLI's --set, the error messages, `orrery config --dump` and
// docs/config.md all come from this one table (config_schema.cpp).
//
// Each direction is written once, in the same entry: apply (value to RunConfig)
// and read (RunConfig to value), behind Config::run_config and Config::of.
//
// To add a key: one KeySpec in config_schema.cpp (and the field it fills in
// integrate/run_config.hpp). Nothing else needs to change.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "orrery/integrate/run_config.hpp"

namespace orrery::io {

enum class ValueType : std::uint8_t { integer, real, string, boolean };

std::string_view to_string(ValueType t);

using Value = std::variant<std::int64_t, double, std::string, bool>;

/// The value as TOML would write it (strings quoted).
std::string to_toml(const Value& v);

struct KeySpec {
  std::string key;  // "section.name"
  ValueType type;
  Value default_value;
  std::string doc;
  std::vector<std::string> choices = {};  // strings: the accepted values (empty: any)
  std::optional<double> min = {};         // numbers: lower bound
  bool min_exclusive = false;             // numbers: min itself not accepted
  /// Writes the (valid) value into the run configuration.
  void (*apply)(const Value&, integrate::RunConfig&) = nullptr;
  /// The value the run configuration holds for this key: the inverse of apply
  /// (read(c) applied to c changes nothing).
  Value (*read)(const integrate::RunConfig&) = nullptr;
  /// Numbers: a value below min accepted as "not set" (the default), and what it means.
  std::optional<double> unset = {};
  std::string unset_means = {};
  std::optional<double> max = {};  // numbers: upper bound (accepted itself)

  /// What the key accepts, in words: "a number > 0", "one of: single, double".
  std::string accepted() const;
  /// Whether v (of this key's type) is accepted.
  bool accepts(const Value& v) const;
  /// The messages of a value refused (every reader's words, the source left
  /// to the caller): "key = v is not accepted; accepted: ..." and
  /// "key = text has the wrong type; accepted: ... (type)".
  std::string not_accepted(const Value& v) const;
  std::string wrong_type(std::string_view text) const;
  std::string_view section() const { return std::string_view(key).substr(0, key.find('.')); }
};

/// All keys, grouped by section, in documentation order.
const std::vector<KeySpec>& config_schema();

/// The spec of "section.name", or null.
const KeySpec* find_key(std::string_view key);

/// The known key with the smallest edit distance to `key`.
std::string nearest_key(std::string_view key);

}  // namespace orrery::io
