#include "orrery/io/config.hpp"

#include <toml++/toml.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "orrery/core/error.hpp"
#include "orrery/core/os_error.hpp"

namespace orrery::io {

namespace {

[[noreturn]] void unknown_key(std::string_view source, std::string_view key, std::string_view value) {
  throw InputError(std::string(source) + ": unknown key " + std::string(key) + " = " + std::string(value) +
                   "; did you mean " + nearest_key(key) + "? (orrery config --dump lists every key)");
}


std::string node_text(const toml::node& node) {
  if (const auto* s = node.as_string()) return "\"" + s->get() + "\"";
  if (const auto* d = node.as_floating_point()) return to_toml(Value(d->get()));
  if (node.is_table()) return "a table";
  if (node.is_array()) return "an array";
  std::ostringstream out;
  node.visit([&](const auto& v) { out << v; });
  return out.str();
}

// The TOML node as the spec's type, or nothing if the type is wrong. An
// integer is accepted where a number is expected.
std::optional<Value> typed(const KeySpec& spec, const toml::node& node) {
  switch (spec.type) {
    case ValueType::integer:
      if (const auto* i = node.as_integer()) return Value(i->get());
      break;
    case ValueType::real:
      if (const auto* d = node.as_floating_point()) return Value(d->get());
      if (const auto* i = node.as_integer()) return Value(static_cast<double>(i->get()));
      break;
    case ValueType::string:
      if (const auto* s = node.as_string()) return Value(s->get());
      break;
    case ValueType::boolean:
      if (const auto* b = node.as_boolean()) return Value(b->get());
      break;
  }
  return std::nullopt;
}

// A command-line value as the spec's type.
std::optional<Value> parsed(const KeySpec& spec, std::string_view text) {
  switch (spec.type) {
    case ValueType::integer: {
      std::int64_t v = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec == std::errc() && end == text.data() + text.size() && !text.empty()) return Value(v);
      break;
    }
    case ValueType::real: {
      const std::string s(text);
      char* end = nullptr;
      errno = 0;
      const double v = std::strtod(s.c_str(), &end);
      if (!s.empty() && end == s.c_str() + s.size() && errno == 0) return Value(v);
      break;
    }
    case ValueType::string:
      if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') && text.back() == text.front()) {
        return Value(std::string(text.substr(1, text.size() - 2)));
      }
      return Value(std::string(text));
    case ValueType::boolean:
      if (text == "true") return Value(true);
      if (text == "false") return Value(false);
      break;
  }
  return std::nullopt;
}

[[noreturn]] void wrong_type(std::string_view source, const KeySpec& spec, std::string_view value) {
  throw InputError(std::string(source) + ": " + spec.wrong_type(value));
}

}  // namespace

Config Config::defaults() {
  Config c;
  for (const auto& spec : config_schema()) c.values_.emplace(spec.key, spec.default_value);
  return c;
}

Config Config::from_file(const std::filesystem::path& path) {
  constexpr const char* kAccepted = "; accepted: a readable TOML file, or none for the default configuration";
  // A directory opens as a stream that reads as empty: it would run the defaults.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError("config file " + path.string() + ": is a directory" + kAccepted);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int e = errno;
    const std::string message = "config file " + path.string() + ": cannot be read (" + std::strerror(e) + ")" + kAccepted;
    if (is_path_error(e)) throw InputError(message);
    throw EnvironmentError(message);
  }
  // Bounded: /dev/zero or a runaway pipe would otherwise be read until memory runs out.
  constexpr std::size_t kLimit = std::size_t{16} << 20;
  std::string text(kLimit + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > kLimit)
    throw InputError("config file " + path.string() + ": larger than 16 MiB" + kAccepted + " (a few KB)");
  return from_string(text, path.string());
}

Config Config::from_string(std::string_view text, std::string_view source) {
  Config c = defaults();
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    throw InputError(std::string(source) + ":" + std::to_string(where.line) + ":" + std::to_string(where.column) +
                     ": TOML syntax error: " + std::string(e.description()) + "; accepted: TOML (https://toml.io)");
  }
  // Keys may nest one level below a section ([initial_conditions.kepler] or
  // kepler.eccentricity = ... inside [initial_conditions]).
  const auto read_table = [&](const std::string& prefix, const toml::table& table, auto& self) -> void {
    for (const auto& [name, value] : table) {
      const std::string key = prefix + "." + std::string(name.str());
      const KeySpec* spec = find_key(key);
      if (spec == nullptr && value.is_table() && prefix.find('.') == std::string::npos) {
        self(key, *value.as_table(), self);
        continue;
      }
      if (spec == nullptr) unknown_key(source, key, node_text(value));
      auto v = typed(*spec, value);
      if (!v) wrong_type(source, *spec, node_text(value));
      c.assign(*spec, std::move(*v), source);
    }
  };
  for (const auto& [section, node] : root) {
    const auto* table = node.as_table();
    if (table == nullptr) unknown_key(source, section.str(), node_text(node));
    read_table(std::string(section.str()), *table, read_table);
  }
  return c;
}

Config Config::load(const std::string& file, const std::vector<std::string>& overrides) {
  Config c = file.empty() ? defaults() : from_file(file);
  for (const auto& assignment : overrides) c.set(assignment);
  return c;
}

Config Config::of(const integrate::RunConfig& run, std::string_view source) {
  Config c;
  for (const auto& spec : config_schema()) c.assign(spec, spec.read(run), source);
  return c;
}

void Config::set(std::string_view assignment) {
  const std::string source = "--set " + std::string(assignment);
  const auto eq = assignment.find('=');
  if (eq == std::string_view::npos) {
    throw InputError(source + ": no '=' in the override; accepted: --set section.key=value");
  }
  const std::string_view key = assignment.substr(0, eq);
  const std::string_view text = assignment.substr(eq + 1);
  const KeySpec* spec = find_key(key);
  if (spec == nullptr) unknown_key("--set", key, text);
  auto v = parsed(*spec, text);
  if (!v) wrong_type("--set", *spec, text);
  assign(*spec, std::move(*v), "--set");
}

void Config::assign(const KeySpec& spec, Value value, std::string_view source) {
  if (!spec.accepts(value)) throw InputError(std::string(source) + ": " + spec.not_accepted(value));
  values_[spec.key] = std::move(value);
}

const Value& Config::get(std::string_view key) const {
  const auto it = values_.find(key);
  if (it == values_.end()) throw InputError("config: unknown key " + std::string(key) + "; did you mean " + nearest_key(key) + "?");
  return it->second;
}

integrate::RunConfig Config::run_config() const {
  integrate::RunConfig rc;
  for (const auto& spec : config_schema()) {
    if (spec.apply != nullptr) spec.apply(get(spec.key), rc);
  }
  return rc;
}

std::string Config::to_toml() const {
  std::string out = "# Orrery run configuration. Every key is shown; see docs/config.md.\n";
  std::string_view section;
  for (const auto& spec : config_schema()) {
    if (spec.section() != section) {
      section = spec.section();
      out += "\n[" + std::string(section) + "]\n";
    }
    out += "# " + spec.doc + " Accepted: " + spec.accepted() + ".\n";
    out += spec.key.substr(section.size() + 1) + " = " + io::to_toml(get(spec.key)) + "\n";
  }
  return out;
}

std::string schema_markdown() {
  std::string out =
      "# Configuration reference\n\n"
      "Generated from the schema (src/orrery/io/config_schema.cpp) by `orrery config --markdown`; do not edit by "
      "hand.\n\n"
      "A run is configured by a TOML file (`orrery run CONFIG.toml`) and `--set section.key=value` overrides; "
      "without a file every key takes its default (`orrery config --dump` prints them as TOML). Unknown keys, "
      "values of the wrong type and values outside the accepted range are errors (exit status 2).\n";
  std::string_view section;
  for (const auto& spec : config_schema()) {
    if (spec.section() != section) {
      section = spec.section();
      out += "\n## [" + std::string(section) + "]\n\n| key | type | default | accepted | description |\n|---|---|---|---|---|\n";
    }
    out += "| `" + spec.key + "` | " + std::string(to_string(spec.type)) + " | `" + to_toml(spec.default_value) + "` | " +
           spec.accepted() + " | " + spec.doc + " |\n";
  }
  return out;
}

}  // namespace orrery::io
