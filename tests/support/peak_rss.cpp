// peak_rss OUT COMMAND [ARGS...]: runs COMMAND, waits for it, and writes "<status> <peak RSS in
// KiB>" to the file OUT (its ru_maxrss from wait4).
//
// Why a program of its own: Linux gives a child, as its starting peak, the resident size of the
// process it was forked from (exec keeps the larger of the two: fs/exec.c, exec_mmap calling
// setmax_mm_hiwater_rss), so that a child forked or spawned straight from a test process that
// holds 100 MB reports at least 100 MB. Forked from this small program, it reports its own.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: peak_rss OUT COMMAND [ARGS...]\n");
    return 2;
  }
  const pid_t pid = ::fork();
  if (pid < 0) return 2;
  if (pid == 0) {
    ::execv(argv[2], argv + 2);
    std::perror("peak_rss: exec");
    ::_exit(127);
  }
  int status = 0;
  rusage usage{};
  if (::wait4(pid, &status, 0, &usage) != pid) return 2;
  std::FILE* out = std::fopen(argv[1], "w");
  if (out == nullptr) return 2;
  std::fprintf(out, "%d %ld\n", status, usage.ru_maxrss);  // KiB on Linux
  return std::fclose(out) == 0 ? 0 : 2;
}
