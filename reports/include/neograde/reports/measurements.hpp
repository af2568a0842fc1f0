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

}  // namespace neograde::reports
