// The catalogue: the spec's instance types as the provider lists its offers, with the capacity
// each has left, and capacity published apart from the catalogue.

#include "model_impl.hpp"

#include <neograde/core/json_util.hpp>

#include <algorithm>

namespace neograde::emulator {

// The offer rows of one instance type: one with the regions that have capacity, or, where the
// spec reads one region per row, one per region the type is sold in (available or not).
std::vector<emu_row> provider_model::impl::offer_rows(const emu_instance_type& t, clock::time_point now) {
  const auto& f = spec.offer_fields;
  emu_row base{{}, t.object};
  auto write = [&](emu_row& row, const std::string& field, const nlohmann::json& value) {
    auto it = f.find(field);
    if (it == f.end()) return;
    if (it->second.pointer.starts_with('^')) row.parent[field] = value;  // the enclosing item's
    else
      write_field(row.object, f, field, value);
  };
  write(base, "instance_type", t.name);
  if (t.description) write(base, "description", *t.description);
  nlohmann::json price = t.price_per_hour_usd;
  if (auto it = f.find("price_per_hour_usd"); it != f.end() && !it->second.plus.empty()) {
    // A summed price: the terms keep the type's own unit prices (or zero); the first number
    // takes the rest, so that the sum is the type's price.
    double rest = price.get<double>() / it->second.scale;
    for (const auto& term : it->second.plus) {
      const auto* v = find_pointer(base.object, term.pointer);
      const double unit = v != nullptr && v->is_string()   ? std::stod(v->get<std::string>())
                          : v != nullptr && v->is_number() ? v->get<double>()
                                                           : 0;
      if (v == nullptr) set_pointer(base.object, term.pointer, it->second.as_string ? nlohmann::json("0") : nlohmann::json(0));
      rest -= unit * term.times;
    }
    price = rest * it->second.scale;
  }
  write(base, "price_per_hour_usd", price);
  if (has(quirk::offers_schema_drift))
    if (auto it = f.find("price_per_hour_usd"); it != f.end() && !it->second.pointer.starts_with('^')) {
      const auto& at = it->second.written_at(base.object);
      set_pointer(base.object, at, find_pointer(base.object, at)->dump());
    }
  if (has(quirk::negative_price)) write(base, "price_per_hour_usd", -price.get<double>());
  for (const auto& [param, value] : t.params) write(base, param, value);
  // "available": a count where the provider writes one (type integer), else a boolean.
  // With `levels`, the word for the count (the first for none, the last for plenty).
  auto availability = [&](long left) {
    auto it = f.find("available");
    if (it != f.end() && !it->second.levels.empty()) {
      const auto& l = it->second.levels;
      return nlohmann::json(l[static_cast<std::size_t>(std::clamp(left, 0L, static_cast<long>(l.size()) - 1))]);
    }
    return it != f.end() && it->second.as_integer ? nlohmann::json(std::max(left, 0L)) : nlohmann::json(left > 0);
  };
  std::vector<emu_row> rows;
  if (f.contains("region")) {
    for (const auto& [r, region_object] : emu.regions) {
      if (!t.capacity.contains(r)) continue;
      auto row = base;
      // A row that is the region's own entry (RunPod's dataCenters) starts as its object.
      if (const auto& rp = f.at("region").pointer; !rp.starts_with('^') && parent_pointer(rp).empty() && region_object.is_object())
        row.object.update(region_object);
      write(row, "region", r);
      write(row, "available", availability(remaining(t, r, now)));
      rows.push_back(std::move(row));
    }
    return rows;
  }
  std::vector<std::string> available;
  long total = 0;
  for (const auto& [r, _] : emu.regions)
    if (const long left = remaining(t, r, now); left > 0) {
      available.push_back(r);
      total += left;
    }
  write(base, "regions_available", available);
  write(base, "available", availability(total));
  rows.push_back(std::move(base));
  return rows;
}

http::response provider_model::impl::list_offers(const operation_spec& op, clock::time_point now, const std::string& raw_query,
                                                 const emu_offer_read* read) {
  // A type a further read names is listed there alone (Prime Intellect's multi-node clusters).
  auto listed = [&](const emu_instance_type& t) {
    auto named = [&](const emu_offer_read& r) { return std::find(r.types.begin(), r.types.end(), t.name) != r.types.end(); };
    return read != nullptr ? named(*read) : std::none_of(emu.offer_reads.begin(), emu.offer_reads.end(), named);
  };
  nlohmann::json collection = op.items_are_object_values ? nlohmann::json::object() : nlohmann::json::array();
  const auto rows_field = spec.offer_fields.find("rows");
  // With `rows`, catalogue items enclose their rows, grouped by the enclosing item's fields
  // (Paperspace's OS templates enclose machine types; TensorDock's locations enclose GPUs).
  std::vector<std::pair<std::map<std::string, nlohmann::json>, nlohmann::json>> groups;
  auto add = [&](nlohmann::json item, const std::string& name) {
    if (op.items_are_object_values) {
      if (has(quirk::duplicate_offers)) collection[name + "_again"] = item;  // a second key, the same type
      collection[name] = std::move(item);
    } else {
      if (has(quirk::duplicate_offers)) collection.push_back(item);
      collection.push_back(std::move(item));
    }
  };
  for (const auto& t : emu.instance_types) {
    if (!listed(t)) continue;
    for (auto& row : offer_rows(t, now)) {
      if (rows_field == spec.offer_fields.end()) {
        add(std::move(row.object), t.name);
        continue;
      }
      auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == row.parent; });
      if (it == groups.end()) {
        // The enclosing item: the type's parent_object, or the region's object when rows are
        // grouped by region (TensorDock's locations).
        nlohmann::json item = t.parent_object;
        if (auto r = row.parent.find("region"); r != row.parent.end() && r->second.is_string())
          if (const auto region = emu.regions.find(r->second.get<std::string>()); region != emu.regions.end()) item.update(region->second);
        // Written as the row's own fields are, in the provider's unit (a price in cents on the
        // enclosing item, Shadeform's hourly_price, is written in cents).
        for (const auto& [field, value] : row.parent) {
          std::map<std::string, field_path> at_parent{{field, spec.offer_fields.at(field)}};
          at_parent[field].pointer.erase(0, 1);
          write_field(item, at_parent, field, value);
        }
        set_pointer(item, rows_field->second.pointer, nlohmann::json::array());
        groups.emplace_back(row.parent, std::move(item));
        it = std::prev(groups.end());
      }
      auto& arr = it->second[nlohmann::json::json_pointer(rows_field->second.pointer)];
      if (has(quirk::duplicate_offers)) arr.push_back(row.object);
      arr.push_back(std::move(row.object));
    }
  }
  for (auto& [key, item] : groups) {
    (void)key;
    if (op.items_are_object_values) collection[std::to_string(collection.size())] = std::move(item);
    else
      collection.push_back(std::move(item));
  }
  if (!op.items_are_object_values) return page_of(op, std::move(collection), raw_query);
  nlohmann::json body = response_template(op);
  set_pointer(body, op.items.value_or(""), std::move(collection));
  return json_response(op.success_status.front(), body);
}

// The capacity published apart from the catalogue (spec offer_availability): per region, the
// types that have some left there now.
http::response provider_model::impl::availability(clock::time_point now) const {
  const auto& a = *spec.offer_availability;
  nlohmann::json items = nlohmann::json::array();
  for (const auto& [region, _] : emu.regions) {
    nlohmann::json types = nlohmann::json::array();
    for (const auto& t : emu.instance_types)
      if (remaining(t, region, now) > 0) types.push_back(t.name);
    nlohmann::json item = nlohmann::json::object();
    set_pointer(item, a.region, region);
    set_pointer(item, a.types, std::move(types));
    items.push_back(std::move(item));
  }
  nlohmann::json body = nlohmann::json::object();
  if (a.items.empty()) body = std::move(items);
  else
    set_pointer(body, a.items, std::move(items));
  return json_response(200, body);
}

}  // namespace neograde::emulator
