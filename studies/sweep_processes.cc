#include "sapcontact/studies/sweep_processes.h"

#include <poll.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace sapcontact {
namespace {

struct Child {
  pid_t pid{-1};
  int fd{-1};
  int task{-1};
  std::string output;
};

// Writes all of `text` to fd (child side); false on error.
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

// Child protocol: one byte '0' (result follows) or '1' (error text
// follows), then the text.
Child Start(int task_index, const std::function<std::string(int)>& task) {
  int fds[2];
  if (::pipe(fds) != 0) {
    throw std::runtime_error(std::string("sweep: pipe: ") +
                             std::strerror(errno));
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int e = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(std::string("sweep: fork: ") + std::strerror(e));
  }
  if (pid == 0) {
    ::close(fds[0]);
#ifdef __linux__
    // A killed sweep (SIGKILL, a pre-empted node) takes its workers along
    // instead of leaving them to finish runs nobody reads.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(4);
#endif
    std::string message;
    try {
      message = "0" + task(task_index);
    } catch (const std::exception& e) {
      message = std::string("1task threw: ") + e.what();
    } catch (...) {
      message = "1task threw a non-standard exception";
    }
    const bool ok = WriteAll(fds[1], message);
    ::close(fds[1]);
    std::fflush(stdout);
    std::fflush(stderr);
    ::_exit(ok ? 0 : 3);
  }
  ::close(fds[1]);
  Child c;
  c.pid = pid;
  c.fd = fds[0];
  c.task = task_index;
  return c;
}

std::string DescribeStatus(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return "killed by signal " + std::to_string(sig) + " (" +
           std::string(strsignal(sig)) + ")";
  }
  if (WIFEXITED(status)) {
    return "exited with status " + std::to_string(WEXITSTATUS(status));
  }
  return "ended abnormally";
}

}  // namespace

void RunInChildProcesses(int count, int jobs,
                         const std::function<std::string(int)>& task,
                         const std::function<void(int, const std::string&,
                                                  const std::string&)>& done) {
  jobs = std::max(1, jobs);
  std::vector<Child> running;
  int next = 0;
  std::vector<pollfd> fds;
  char buffer[65536];
  while (next < count || !running.empty()) {
    while (next < count && static_cast<int>(running.size()) < jobs) {
      running.push_back(Start(next++, task));
    }
    fds.assign(running.size(), pollfd{});
    for (size_t i = 0; i < running.size(); ++i) {
      fds[i].fd = running[i].fd;
      fds[i].events = POLLIN;
    }
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("sweep: poll: ") +
                               std::strerror(errno));
    }
    for (size_t i = running.size(); i-- > 0;) {
      if (fds[i].revents == 0) continue;
      Child& c = running[i];
      const ssize_t n = ::read(c.fd, buffer, sizeof(buffer));
      if (n > 0) {
        c.output.append(buffer, static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      // End of file (or a read error): the child is done.
      ::close(c.fd);
      int status = 0;
      while (::waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
      }
      std::string failure;
      std::string output;
      if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        failure = "worker process " + DescribeStatus(status);
      } else if (c.output.empty()) {
        failure = "worker process sent no result";
      } else if (c.output[0] == '1') {
        failure = c.output.substr(1);
      } else {
        output = c.output.substr(1);
      }
      const int index = c.task;
      running.erase(running.begin() + static_cast<long>(i));
      try {
        done(index, output, failure);
      } catch (...) {
        // The caller cannot take results any more: stop the other workers.
        for (Child& other : running) {
          ::kill(other.pid, SIGKILL);
          ::close(other.fd);
          while (::waitpid(other.pid, nullptr, 0) < 0 && errno == EINTR) {
          }
        }
        throw;
      }
    }
  }
}

}  // namespace sapcontact
