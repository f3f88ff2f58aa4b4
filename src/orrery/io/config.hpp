#pragma once
// The run configuration: TOML (toml++) checked against the schema
// (config_schema.hpp), then --set overrides. Every failure is an InputError
// of one line naming the source (file or --set), the key, the value and what
// is accepted; unknown keys name the nearest known key.
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "orrery/integrate/run_config.hpp"
#include "orrery/io/config_schema.hpp"

namespace orrery::io {

class Config {
 public:
  /// Every key at its default: the embedded default run.
  static Config defaults();
  /// Reads and checks a TOML file; keys it does not set keep their defaults.
  static Config from_file(const std::filesystem::path& path);
  /// As from_file, from text; `source` names it in errors.
  static Config from_string(std::string_view toml, std::string_view source = "config");

  /// The file (or the defaults when `file` is empty), then the overrides in
  /// order: what `orrery run FILE --set ...` runs.
  static Config load(const std::string& file, const std::vector<std::string>& overrides);
  /// The configuration that holds `run`: every key as the run configuration
  /// has it (KeySpec::read), checked as a file's values are (`source` names
  /// it in errors). of(c.run_config()) equals c; of(run).run_config() is run.
  static Config of(const integrate::RunConfig& run, std::string_view source = "run configuration");

  /// Applies "section.key=value" (the value as on a command line: strings
  /// with or without quotes, numbers, true/false).
  void set(std::string_view assignment);

  const Value& get(std::string_view key) const;
  /// The typed run configuration.
  integrate::RunConfig run_config() const;
  /// The whole configuration as TOML, each key preceded by its documentation.
  std::string to_toml() const;

 private:
  void assign(const KeySpec& spec, Value value, std::string_view source);
  std::map<std::string, Value, std::less<>> values_;
};

/// docs/config.md: every key of the schema with type, default and documentation.
std::string schema_markdown();

}  // namespace orrery::io
