#pragma once
// Runs commands on an instance with the OpenSSH client (ssh, ssh-keygen), as child processes
// with an argument vector (no shell here), a deadline and bounded output: a hostile or hung
// instance can neither block neograde nor fill its memory.

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace neograde::ssh {

// What a child process did.
struct process_result {
  int exit_code = -1;      // -1 when it did not exit by itself
  bool timed_out = false;  // killed at the deadline
  std::string out, err;    // at most the caps given; `truncated` says when more came
  bool truncated = false;
  std::string error;  // set when it could not be started
};

struct process_options {
  std::chrono::milliseconds timeout{60'000};
  std::size_t max_out = 16 << 20;
  std::size_t max_err = 64 << 10;
  std::optional<std::filesystem::path> stdin_file;  // else /dev/null
};

// Runs argv[0] (looked up in PATH) with its arguments.
[[nodiscard]] process_result run_process(const std::vector<std::string>& argv, const process_options& options = {});

struct target {
  std::string host;
  int port = 22;
  std::string user;
  std::filesystem::path identity;     // private key file
  std::filesystem::path known_hosts;  // this run's own file: host keys are accepted on first use
  int connect_timeout_s = 10;
};

// ssh's argument vector for running `remote_command` (a shell command line) on the target.
[[nodiscard]] std::vector<std::string> ssh_argv(const target& t, const std::string& remote_command);

// Runs a shell command line on the target.
[[nodiscard]] process_result run(const target& t, const std::string& remote_command, const process_options& options = {});

// Copies a local file to `remote_path` (mode 0700) through ssh's standard input: no scp or
// SFTP subsystem is needed on the instance.
[[nodiscard]] process_result copy_to(const target& t, const std::filesystem::path& local, const std::string& remote_path,
                                     std::chrono::milliseconds timeout);

// A fresh ed25519 key pair in `dir` (created 0700): returns the private key's path, or the
// reason ssh-keygen failed.
struct key_pair {
  std::filesystem::path private_key;
  std::string public_key;  // the .pub file's line
  std::string error;
};
[[nodiscard]] key_pair generate_key(const std::filesystem::path& dir, const std::string& comment);
// Reads `identity`.pub; error when it is missing.
[[nodiscard]] key_pair existing_key(const std::filesystem::path& identity);

}  // namespace neograde::ssh
