#pragma once
// Who owns an address: one RDAP lookup (RFC 9083 §5.4, the IP network object) of an instance's
// public IP. The RIR is found through IANA's bootstrap registry (RFC 9224: the longest matching
// prefix of ipv4.json or ipv6.json), unless a base URL is given; redirects between registries
// are followed here (the HTTP client follows none), bounded, never downgrading https. Special-
// purpose addresses (RFC 6890's registries and their updates) are answered locally without a
// query. Failures are recorded in the result, never thrown. No Beast here: see rdap.cpp.

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace neograde::rdap {

struct lookup_options {
  // Where the bootstrap files ipv4.json and ipv6.json are read (RFC 9224 §3).
  std::string bootstrap_url = "https://data.iana.org/rdap/";
  // A base RDAP URL that replaces the bootstrap entirely (`<rdap_url>ip/<address>` is asked).
  std::string rdap_url;
  std::string ca_file;  // trusted in addition to the system store (an emulator's certificate)
  int max_redirects = 5;
  std::chrono::milliseconds step_timeout{10'000};   // resolve, connect, handshake, write, read: each
  std::chrono::milliseconds total_timeout{60'000};  // no request is started after this
  std::size_t max_body_bytes = 1024 * 1024;
  int max_retries = 1;                               // on 429 and 503, honouring Retry-After
  std::chrono::milliseconds max_retry_wait{10'000};  // a longer Retry-After is not waited for
  // Replaces the wait between retries (tests); default sleeps the calling thread.
  std::function<void(std::chrono::milliseconds)> sleep;
  // Tests only: query special-purpose addresses instead of answering them locally.
  bool classify_locally = true;
  std::string user_agent = "neograde/0.1 (RDAP; one lookup per instance address)";
};

enum class lookup_status { found, special_purpose, not_found, error };
[[nodiscard]] std::string_view to_string(lookup_status s);

// A block of an IANA special-purpose registry (or the multicast and reserved spaces).
struct special_block {
  std::string prefix;     // "100.64.0.0/10"
  std::string name;       // "Shared Address Space (carrier-grade NAT)"
  std::string reference;  // "RFC 6598"
};

// The special-purpose block containing `address`, if any (IPv4-mapped IPv6 is classified as its
// IPv4 address); nullopt for global unicast addresses and for text that is not an address.
[[nodiscard]] std::optional<special_block> special_purpose(std::string_view address);

// The registrant organisation, as the vCard of the entity chosen says.
struct organisation {
  std::string name;  // vCard fn, else the first component of org
  std::string handle;
  std::string role;         // the entity's role that chose it: "registrant"
  std::string kind;         // vCard kind, e.g. "org" ("" when none)
  std::string selected_by;  // why this entity: see docs/address-owner.md
};

struct address_owner {
  std::string address;  // as asked, canonical (RFC 5952 for IPv6; an IPv4-mapped one unmapped)
  lookup_status status = lookup_status::error;
  std::optional<special_block> special;  // with special_purpose

  // The ip network object (found).
  std::string network_handle, network_name, network_type, start_address, end_address, parent_handle;
  std::vector<std::string> cidrs;  // from cidr0_cidrs, where published
  std::optional<organisation> org;
  std::string country;                                 // two letters, or a country name from an address label
  std::string country_source;                          // "network", "registrant address cc", "registrant address label"
  std::optional<std::vector<std::int64_t>> origin_as;  // where the registry publishes it
  std::string origin_as_source;                        // "arin_originas0_originautnums"

  std::string server;     // the RDAP base URL asked first (bootstrap's or rdap_url)
  std::string bootstrap;  // the bootstrap file read ("" with rdap_url)
  std::string query_url;  // the first URL asked
  std::string final_url;  // the URL that answered (after redirects)
  struct redirect {
    int status = 0;
    std::string from, to;
    bool upgraded = false;  // an http Location from an https server, asked over https
  };
  std::vector<redirect> redirects;
  std::optional<int> http_status;  // of the final answer
  std::optional<double> retry_after_s;
  std::string reason;  // why, for special_purpose and not_found
  std::string error;   // what failed, for error

  [[nodiscard]] nlohmann::json to_json() const;
};

// Looks `address` up (never throws; every failure is a result with status error).
[[nodiscard]] address_owner lookup_ip_owner(std::string_view address, const lookup_options& options = {});

// Reads an RDAP ip network object into `out` (network, organisation, country, origin AS); false
// with out.error set when the document is not one. Exposed for tests.
bool read_ip_network(const nlohmann::json& doc, address_owner& out);

// A jCard (RFC 7095) read leniently: the first value of each property the lookup uses.
struct vcard {
  std::string fn, kind, org, adr_cc, adr_label;
  bool valid = false;  // ["vcard", [properties...]]
};
[[nodiscard]] vcard read_vcard(const nlohmann::json& vcard_array);

}  // namespace neograde::rdap
