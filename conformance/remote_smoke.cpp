// --remote-exec: the delivered hardware, measured on the instance itself. Once the instance
// runs, waits for SSH to answer (a provider may report "running" long before), copies
// neograde-gpu-smoke there, runs it, and keeps its JSON document as the run's hardware record.

#include "context.hpp"

#include <neograde/clients/ssh.hpp>
#include <neograde/core/text.hpp>

#include <unistd.h>

#include <cmath>
#include <thread>

namespace neograde::conformance::detail {
namespace {

using nlohmann::json;

std::string tail(const std::string& text, std::size_t n = 400) {
  auto t = text.size() > n ? "..." + text.substr(text.size() - n) : text;
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  return t;
}

std::string describe(const ssh::process_result& r) {
  if (!r.error.empty()) return r.error;
  if (r.timed_out) return "timed out";
  return "exit " + std::to_string(r.exit_code) + (r.err.empty() ? "" : ": " + tail(r.err));
}

// "gpu.sku [GPU 0]: delivered ...; ordered ...": the first failing check of a smoke document.
std::string first_failure(const json& doc) {
  if (doc.contains("checks") && doc["checks"].is_array())
    for (const auto& c : doc["checks"])
      if (c.is_object() && c.value("verdict", "") == "fail")
        return c.value("id", "") + (c.contains("gpu") && c["gpu"].is_number() ? " [GPU " + c["gpu"].dump() + "]" : "") + ": " +
               c.value("message", "");
  return "the smoke test failed";
}

std::chrono::milliseconds ms(double seconds) { return std::chrono::milliseconds(static_cast<long long>(seconds * 1000)); }

// Where the run logs in: the instance's endpoint as its provider states it (the spec's `ssh`
// section), with --ssh-user/--ssh-port in its place where given. A spec without the section: the
// address on port 22 as ubuntu (the old fixed default); one whose instance states none yet: no
// host, so nothing is guessed.
ssh_endpoint endpoint_of(const provider_spec& spec, const remote_exec_options& o, const instance& i) {
  ssh_endpoint e = i.ssh ? *i.ssh
                   : spec.ssh
                       ? ssh_endpoint{.host = "", .port = spec.ssh->port, .user = spec.ssh->user, .from = "none stated"}
                       : ssh_endpoint{.host = i.ip.value_or(""), .port = 22, .user = "ubuntu", .from = "the address (no ssh section)"};
  if (!o.user.empty()) e.user = o.user, e.from += "; user from --ssh-user";
  if (o.port != 0) e.port = o.port, e.from += "; port from --ssh-port";
  return e;
}

}  // namespace

json run_remote_smoke(context& ctx, const instance& first_seen) {
  const auto& o = *ctx.opts.remote;
  instance running = first_seen;
  const auto started = ctx.now();
  const auto deadline = started + ms(o.ssh_wait_s);
  // A provider may state the endpoint only some time after "running" (RunPod's ssh.direct waits
  // for a public port): the instance is read again until it does, within the SSH wait.
  const bool declared = ctx.spec.ssh.has_value();
  while (declared && !running.ssh && ctx.now() < deadline) {
    ctx.sleep(std::min<std::chrono::milliseconds>(std::chrono::seconds(5), std::max(ctx.poll_interval(), std::chrono::milliseconds(200))));
    if (auto again = ctx.client.get(running.id); again.value) running = *again.value;
  }
  auto endpoint = endpoint_of(ctx.spec, o, running);
  json rec = {{"instance", {{"id", running.id}, {"type", running.instance_type}, {"region", running.region}}},
              {"address", running.ip ? json(*running.ip) : json(nullptr)},
              {"ssh_host", endpoint.host.empty() ? json(nullptr) : json(endpoint.host)},
              {"ssh_port", endpoint.port},
              {"user", endpoint.user},
              {"endpoint_from", endpoint.from},
              {"time_to_ssh_s", nullptr},
              {"exit_code", nullptr},
              {"smoke", nullptr}};
  if (!running.address_choice.empty()) rec["address_choice"] = running.address_choice;
  auto finish = [&](const char* status, const std::string& reason) {
    rec["status"] = status;
    rec["reason"] = reason;
    return rec;
  };
  if (endpoint.host.empty())
    return finish("unreachable", declared ? "the instance states no SSH endpoint where the spec says (" + ctx.spec.ssh->source +
                                                ") within " + std::to_string(static_cast<int>(o.ssh_wait_s)) + " s of running"
                                          : "the instance reports running but no address");

  char dir_template[] = "/tmp/neograde-ssh-XXXXXX";
  if (::mkdtemp(dir_template) == nullptr) return finish("error", "cannot create a directory for known_hosts");
  const std::filesystem::path dir = dir_template;
  struct cleanup {
    std::filesystem::path p;
    ~cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(p, ec);
    }
  } remove_dir{dir};

  ssh::target t{endpoint.host, endpoint.port, endpoint.user, ctx.private_key, dir / "known_hosts", 10};
  ssh::process_result probe;
  for (;;) {
    probe = ssh::run(t, "true", {.timeout = std::chrono::seconds(t.connect_timeout_s + 5)});
    if (probe.exit_code == 0 || ctx.now() >= deadline) break;
    ctx.sleep(std::min<std::chrono::milliseconds>(std::chrono::seconds(2), std::max(ctx.poll_interval(), std::chrono::milliseconds(200))));
  }
  if (probe.exit_code != 0)
    return finish("unreachable", "SSH to " + endpoint.user + "@" + endpoint.host + ":" + std::to_string(endpoint.port) + " (" +
                                     endpoint.from + ") did not answer within " + std::to_string(static_cast<int>(o.ssh_wait_s)) +
                                     " s of running (" + describe(probe) + ")");
  const double to_ssh = std::round(std::chrono::duration<double>(ctx.now() - started).count() * 1000) / 1000;
  rec["time_to_ssh_s"] = to_ssh;
  ctx.dx.mark(dx_timeline::ssh, ctx.now());
  ctx.measurements["time_to_ssh_s"] = to_ssh;

  const std::string remote_path = "/tmp/neograde-gpu-smoke-" + ctx.session.run_id();
  auto copied = ssh::copy_to(t, o.binary, remote_path, std::chrono::seconds(120));
  if (copied.exit_code != 0) return finish("error", "copying " + o.binary + " to the instance failed: " + describe(copied));

  std::string command = shell_quote(remote_path);
  for (const auto& a : o.smoke_args) command += " " + shell_quote(a);
  command += "; rc=$?; rm -f " + shell_quote(remote_path) + "; exit $rc";
  ctx.dx.mark(dx_timeline::first_kernel, ctx.now());  // the smoke test's own start: its first kernel follows at once
  auto ran = ssh::run(t, command, {.timeout = ms(o.smoke_timeout_s)});
  if (ran.exit_code >= 0) rec["exit_code"] = ran.exit_code;
  rec["stderr"] = tail(ran.err, 4000);
  if (ran.timed_out)
    return finish("error", "the smoke test did not finish within " + std::to_string(static_cast<int>(o.smoke_timeout_s)) + " s");
  auto doc = json::parse(ran.out, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("status") || !doc["status"].is_string())
    return finish("error", "the smoke test printed no result document (" + describe(ran) + ")");
  rec["smoke"] = doc;
  // The document comes from the instance: any field may have any type.
  try {
    const auto status = doc["status"].get<std::string>();
    if (status == "pass") return finish("pass", "the delivered GPUs passed the smoke test");
    if (status == "no_gpu")
      return finish("no_gpu", "no GPU on the instance: " + doc.value("/no_gpu/reason"_json_pointer, json("")).get<std::string>());
    if (status == "fail") return finish("fail", first_failure(doc));
    return finish("error", "the smoke test reported an unknown status \"" + status + "\"");
  } catch (const json::exception& e) {
    rec["smoke"] = nullptr;
    return finish("error", std::string("the smoke test's document is malformed: ") + e.what());
  }
}

json fixture_hardware(const instance& running, const json& smoke) {
  return {{"origin", "fixture"},
          {"instance", {{"id", running.id}, {"type", running.instance_type}, {"region", running.region}}},
          {"address", running.ip ? json(*running.ip) : json(nullptr)},
          {"time_to_ssh_s", nullptr},
          {"exit_code", nullptr},
          {"status", "fixture"},
          {"reason", "fixture smoke record (demonstration): nothing was measured on this instance"},
          {"smoke", smoke}};
}

}  // namespace neograde::conformance::detail
