// ProbeFclibFile (fclib/fclib_io.h): the read in a forked child process.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "sapcontact/fclib/fclib_io.h"

namespace sapcontact {
namespace {

bool WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// The child: read the file as ReadFclib* does; report on `fd`: '0' (read),
// '1' + message (FclibError), '2' + message (another exception).
[[noreturn]] void Child(const std::string& path, int fd) {
  std::string report;
  try {
    if (DetectFclibProblemKind(path) == FclibProblemKind::kLocal) {
      ReadFclibLocal(path);
    } else {
      ReadFclibGlobal(path);
    }
    report = "0";
  } catch (const FclibError& e) {
    report = std::string("1") + e.what();
  } catch (const std::exception& e) {
    report = std::string("2") + e.what();
  } catch (...) {
    report = "2a non-standard exception";
  }
  WriteAll(fd, report);
  ::_exit(0);
}

// The child may allocate at most kChildMemory more address space than it
// started with: a damaged size read by HDF5 then fails an allocation in the
// child instead of taking the machine's memory.
constexpr unsigned long long kChildMemory = 4ULL << 30;

void LimitChildMemory() {
  unsigned long long pages = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%llu", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  if (pages == 0) return;
  const unsigned long long page = static_cast<unsigned long long>(
      ::sysconf(_SC_PAGESIZE) > 0 ? ::sysconf(_SC_PAGESIZE) : 4096);
  rlimit limit{};
  limit.rlim_cur = limit.rlim_max =
      static_cast<rlim_t>(pages * page + kChildMemory);
  ::setrlimit(RLIMIT_AS, &limit);
}

std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// The gist of what libfclib and HDF5 printed: the innermost HDF5 error
// ("#011: ... in H5FD_read(): addr overflow ...") and the last line
// ("./src/fclib.h: 471 => ERROR: HDF5 call failed").
std::string Gist(const std::string& output) {
  std::string last, innermost;
  size_t start = 0;
  while (start < output.size()) {
    size_t end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    const std::string line = Trim(output.substr(start, end - start));
    if (!line.empty()) last = line;
    if (line.size() > 1 && line[0] == '#' &&
        line.find(" in ") != std::string::npos) {
      innermost = line.substr(line.find(" in ") + 4);
    }
    start = end + 1;
  }
  std::string gist = last;
  if (!innermost.empty() && innermost != last) {
    gist += (gist.empty() ? "" : "; HDF5: ") + innermost;
  }
  if (gist.size() > 400) gist = gist.substr(0, 400) + "...";
  return gist;
}

std::string Describe(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return "was killed by signal " + std::to_string(sig) + " (" +
           std::string(strsignal(sig)) + ")";
  }
  if (WIFEXITED(status)) {
    return "exited with status " + std::to_string(WEXITSTATUS(status));
  }
  return "ended abnormally";
}

}  // namespace

void ProbeFclibFile(const std::string& path, double timeout_s) {
  int report[2], output[2];
  if (::pipe(report) != 0) {
    throw FclibError(path + ": cannot create a pipe to probe the file: " +
                     std::strerror(errno));
  }
  if (::pipe(output) != 0) {
    const int e = errno;
    ::close(report[0]);
    ::close(report[1]);
    throw FclibError(
        path + ": cannot create a pipe to probe the file: " + std::strerror(e));
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int e = errno;
    for (int fd : {report[0], report[1], output[0], output[1]}) ::close(fd);
    throw FclibError(path +
                     ": cannot fork to probe the file: " + std::strerror(e));
  }
  if (pid == 0) {
    ::close(report[0]);
    ::close(output[0]);
    LimitChildMemory();
    // libfclib and HDF5 print to stdout and stderr: capture both.
    ::dup2(output[1], STDOUT_FILENO);
    ::dup2(output[1], STDERR_FILENO);
    ::close(output[1]);
    Child(path, report[1]);
  }
  ::close(report[1]);
  ::close(output[1]);

  std::string text[2];
  bool open[2] = {true, true};
  const int fds[2] = {report[0], output[0]};
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration<double>(timeout_s);
  bool timed_out = false;
  char buffer[4096];
  while (open[0] || open[1]) {
    const double left = std::chrono::duration<double>(
                            deadline - std::chrono::steady_clock::now())
                            .count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd p[2];
    int count = 0;
    int which[2];
    for (int i = 0; i < 2; ++i) {
      if (!open[i]) continue;
      p[count] = pollfd{fds[i], POLLIN, 0};
      which[count++] = i;
    }
    const int ready =
        ::poll(p, count, static_cast<int>(std::min(left * 1000.0, 1e9)) + 1);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int j = 0; j < count; ++j) {
      if (p[j].revents == 0) continue;
      const int i = which[j];
      const ssize_t n = ::read(fds[i], buffer, sizeof(buffer));
      if (n > 0) {
        // Keep the report whole and the last 64 KiB of the output.
        text[i].append(buffer, static_cast<size_t>(n));
        if (i == 1 && text[1].size() > 65536) {
          text[1].erase(0, text[1].size() - 65536);
        }
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        open[i] = false;
      }
    }
  }
  if (timed_out) ::kill(pid, SIGKILL);
  ::close(report[0]);
  ::close(output[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    char what[64];
    std::snprintf(what, sizeof(what), "%g s", timeout_s);
    throw FclibError(path + ": reading the file did not finish within " + what +
                     " (a damaged file?); the reading process was "
                     "stopped");
  }
  const std::string& r = text[0];
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && !r.empty()) {
    if (r[0] == '0') return;
    // The child's FclibError already names the file.
    throw FclibError(r.substr(1));
  }
  std::string gist = Gist(text[1]);
  throw FclibError(path +
                   ": libfclib/HDF5 could not read the file (the "
                   "reading process " +
                   Describe(status) + (gist.empty() ? "" : ": " + gist) + ")");
}

}  // namespace sapcontact
