#include <neograde/clients/ssh.hpp>
#include <neograde/core/text.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

extern char** environ;

namespace neograde::ssh {
namespace {

struct fd {
  int value = -1;
  ~fd() { reset(); }
  void reset() {
    if (value >= 0) ::close(value);
    value = -1;
  }
};

}  // namespace

process_result run_process(const std::vector<std::string>& argv, const process_options& options) {
  process_result r;
  if (argv.empty()) {
    r.error = "no program given";
    return r;
  }
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return r.error = std::strerror(errno), r;
  fd out_read{out_pipe[0]}, out_write{out_pipe[1]};
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) return r.error = std::strerror(errno), r;
  fd err_read{err_pipe[0]}, err_write{err_pipe[1]};
  const std::string in_path = options.stdin_file ? options.stdin_file->string() : "/dev/null";

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, in_path.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_write.value, 1);
  posix_spawn_file_actions_adddup2(&actions, err_write.value, 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);  // its own group: killed whole at the deadline
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  out_write.reset();
  err_write.reset();
  if (rc != 0) {
    r.error = "cannot run " + argv[0] + ": " + std::strerror(rc);
    return r;
  }

  const auto deadline = std::chrono::steady_clock::now() + options.timeout;
  pollfd fds[2] = {{out_read.value, POLLIN, 0}, {err_read.value, POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  const std::size_t caps[2] = {options.max_out, options.max_err};
  int open = 2;
  char buf[65536];
  while (open > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      break;
    }
    if (::poll(fds, 2, static_cast<int>(std::min<long long>(left.count(), 1000))) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        fds[i].fd = -1;
        --open;
        continue;
      }
      const auto room = caps[i] > sinks[i]->size() ? caps[i] - sinks[i]->size() : 0;
      if (static_cast<std::size_t>(n) > room) r.truncated = true;
      sinks[i]->append(buf, std::min<std::size_t>(room, static_cast<std::size_t>(n)));
    }
  }
  if (r.timed_out) ::kill(-pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (!r.timed_out && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  return r;
}

std::vector<std::string> ssh_argv(const target& t, const std::string& remote_command) {
  return {"ssh",
          "-p",
          std::to_string(t.port),
          "-i",
          t.identity.string(),
          "-o",
          "IdentitiesOnly=yes",
          "-o",
          "BatchMode=yes",
          "-o",
          "StrictHostKeyChecking=accept-new",
          "-o",
          "UserKnownHostsFile=" + t.known_hosts.string(),
          "-o",
          "ConnectTimeout=" + std::to_string(t.connect_timeout_s),
          "-o",
          "ServerAliveInterval=15",
          "-o",
          "LogLevel=ERROR",
          "--",
          t.user.empty() ? t.host : t.user + "@" + t.host,
          remote_command};
}

process_result run(const target& t, const std::string& remote_command, const process_options& options) {
  return run_process(ssh_argv(t, remote_command), options);
}

process_result copy_to(const target& t, const std::filesystem::path& local, const std::string& remote_path,
                       std::chrono::milliseconds timeout) {
  process_options o;
  o.timeout = timeout;
  o.stdin_file = local;
  const auto q = shell_quote(remote_path);
  return run(t, "umask 077 && cat > " + q + " && chmod 700 " + q, o);
}

key_pair generate_key(const std::filesystem::path& dir, const std::string& comment) {
  key_pair k;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all, ec);
  if (ec) return k.error = "cannot create " + dir.string() + ": " + ec.message(), k;
  const auto path = dir / "id_ed25519";
  auto r = run_process({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", path.string()},
                       {.timeout = std::chrono::seconds(30)});
  if (r.exit_code != 0) return k.error = "ssh-keygen failed: " + (r.error.empty() ? r.err : r.error), k;
  return existing_key(path);
}

key_pair existing_key(const std::filesystem::path& identity) {
  key_pair k;
  k.private_key = identity;
  std::ifstream in(identity.string() + ".pub");
  if (!in || !std::getline(in, k.public_key) || k.public_key.empty()) k.error = "no public key at " + identity.string() + ".pub";
  return k;
}

}  // namespace neograde::ssh
