#pragma once
// The footer's measurements as a person reads them: each typed measurement (core/measurements.hpp)
// a table of labels and values in words, for the Markdown and HTML scorecards alike.

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace neograde::reports {

struct measurement_table {
  std::string key;                                        // the footer's name for it (spend, rate_limit, ...)
  std::string title;                                      // "Spend"
  std::vector<std::pair<std::string, std::string>> rows;  // label, value in words
};

// The typed measurements a footer's `measurements` holds, in a fixed order, each as a table;
// developer_experience is left out (developer_experience_rows, reports/transparency.hpp, gives
// its own section). A measurement that is absent or not an object has no table.
[[nodiscard]] std::vector<measurement_table> measurement_tables(const nlohmann::json& measurements);

// An array of objects inside a measurement, as a table: one column per member (in the order first
// met), one row per element.
struct measurement_grid {
  std::string name;  // its dotted name (address_owner.entities)
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
};

// The measurements without a struct of their own (catalogue, api_traffic, time_to_running_s, ...),
// read as data and never shown as JSON text: nested objects become rows named by their dotted
// path (latency_read_ms.p95), each value in words (value_in_words), and each array of objects a
// grid of its own.
struct untyped_measurements {
  std::vector<std::pair<std::string, std::string>> rows;  // dotted name, value in words
  std::vector<measurement_grid> grids;
};
[[nodiscard]] untyped_measurements untyped_measurement_rows(const nlohmann::json& measurements);

// One recorded value in words: a string as it is, a number as JSON writes it (0.5, 9.0), true and
// false as yes and no, null as n/a, an array of scalars joined by ", ", an object or array of
// objects as "key: value; ..." (one level deep, deeper ones counted). Never JSON text.
[[nodiscard]] std::string value_in_words(const nlohmann::json& value);

}  // namespace neograde::reports
