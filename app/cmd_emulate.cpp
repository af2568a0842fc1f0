#include "commands.hpp"
#include "options.hpp"

#include <neograde/emulator/emulator.hpp>
#include <neograde/emulator/rdap.hpp>

#include <csignal>
#include <fstream>
#include <iostream>
#include <memory>

namespace neograde::app {
namespace {

std::vector<std::string> split_csv(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    auto comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

}  // namespace

command add_emulate(CLI::App& app) {
  struct options {
    std::string provider;
    std::string host = "127.0.0.1";
    std::uint16_t port = 0;
    bool tls = false;
    std::string cert, key, ca_out;
    std::string keys;
    std::vector<std::string> quirks;
    double time_scale = 1.0;
    bool no_rate_limit = false;
    bool no_head_content_length = false;
    std::string instance_address;
    int instance_ssh_port = 0;
    std::string instance_ssh_user;
    bool rdap = false;
  };
  auto o = std::make_shared<options>();
  auto* cmd = app.add_subcommand("emulate", "Serve a provider's API from the embedded emulator");
  cmd->add_option("--provider", o->provider, "Provider spec: a name or a path")->required();
  cmd->add_option("--host", o->host, "Address to listen on")->capture_default_str();
  cmd->add_option("--port", o->port, "Port (0: any free port)")->capture_default_str();
  cmd->add_flag("--tls", o->tls, "Serve HTTPS (a certificate is generated unless --cert is given)");
  cmd->add_option("--cert", o->cert, "PEM certificate chain for --tls");
  cmd->add_option("--key", o->key, "PEM private key for --tls");
  cmd->add_option("--ca-out", o->ca_out, "Where to write the certificate clients must trust (with --tls)");
  cmd->add_option("--keys", o->keys, "Comma-separated API keys, one account each (default: two random keys)");
  cmd->add_option("--quirk", o->quirks, "Switch on a misbehaviour (repeatable; see `neograde checks`)");
  cmd->add_option("--time-scale", o->time_scale, "Multiply every delay by this (0.01 in tests)")->capture_default_str();
  cmd->add_flag("--no-rate-limit", o->no_rate_limit, "Do not answer 429 past the spec's rate limit");
  cmd->add_flag("--no-head-content-length", o->no_head_content_length,
                "Answer HEAD without Content-Length (by default it carries GET's length, as most servers do)");
  cmd->add_option("--instance-address", o->instance_address, "Address running instances report (e.g. 127.0.0.1 where a test sshd listens)");
  cmd->add_option("--instance-ssh-port", o->instance_ssh_port,
                  "SSH port running instances report through the provider's own fields (default: the spec's ssh port)")
      ->check(CLI::Range(1, 65535));
  cmd->add_option("--instance-ssh-user", o->instance_ssh_user,
                  "SSH user running instances report, where the provider's API states one (default: the spec's ssh user)");
  cmd->add_flag("--rdap", o->rdap,
                "Also serve a fictional RDAP registry under /_neograde/rdap/ on the same port (for --rdap-url; "
                "docs/address-owner.md lists its networks)");
  return [o] {
    auto spec = load_spec_or_throw(o->provider);
    emulator::model_options model;
    model.api_keys = o->keys.empty() ? emulator::make_api_keys(spec, 2) : split_csv(o->keys);
    for (const auto& q : o->quirks) {
      if (!emulator::is_known_quirk(q)) throw usage_error("unknown quirk \"" + q + "\" (see `neograde checks --quirks`)");
      model.quirks.insert(q);
    }
    if (o->time_scale < 0) throw usage_error("--time-scale must not be negative");
    model.time_scale = o->time_scale;
    model.rate_limit = !o->no_rate_limit;
    model.head_content_length = !o->no_head_content_length;
    model.instance_address = o->instance_address;
    model.instance_ssh_port = o->instance_ssh_port;
    model.instance_ssh_user = o->instance_ssh_user;
    emulator::server_options server{.host = o->host, .port = o->port, .tls = o->tls, .cert_file = o->cert, .key_file = o->key};
    if (o->rdap)
      server.intercept = emulator::serve(std::make_shared<emulator::rdap_emulator>(emulator::rdap_emulator::default_prefix, o->tls));

    // Block the signals before any thread starts, then wait for one of them.
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);

    emulator::emulator emu(spec, model, server);
    try {
      emu.start();
    } catch (const std::exception& e) {
      throw usage_error(e.what());
    }
    std::cout << emu.base_url() << "\n";
    for (const auto& k : model.api_keys) std::cout << "key: " << k << "\n";
    if (o->rdap) {
      const auto base = emu.base_url();
      std::cout << "rdap: " << base.substr(0, base.find('/', base.find("://") + 3)) << emulator::rdap_emulator::default_prefix << "rir1/\n";
    }
    if (o->tls) {
      const auto ca = o->ca_out.empty() ? "neograde-emulator-" + std::to_string(emu.port()) + ".pem" : o->ca_out;
      std::ofstream(ca) << emu.certificate_pem();
      std::cout << "ca: " << ca << "\n";
    }
    std::cout << "emulating " << spec.provider.display_name << (model.quirks.empty() ? "" : " with quirks") << "; "
              << "stop with Ctrl-C" << std::endl;
    int sig = 0;
    sigwait(&signals, &sig);
    emu.stop();
    return exit_ok;
  };
}

}  // namespace neograde::app
