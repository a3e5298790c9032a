// Writing a file so that a reader (or a second writer) only ever sees a complete one, and a
// failed write never deletes anything it did not create.
//
//   AtomicFile f(path);          // creates PATH.tmp.<pid>.<random> beside PATH (O_EXCL)
//   write to f.fd() / f.stream() / f.release_fd() ...
//   f.commit();                  // closes, then renames the temporary file onto PATH
//
// Not committed (an exception, an early return), the destructor removes the temporary file
// and leaves PATH as it was. rename() is atomic within a folder, so two processes writing the
// same path leave one complete file, the last to commit. A path that exists and is neither a
// regular file nor a folder (a device such as /dev/null or /dev/full, a pipe) is written in
// place: renaming onto it would replace the device node, and failing never removes it. A
// symbolic link is followed: the file it points to is replaced, the link stays.
#pragma once

#include <cstdio>
#include <string>

namespace meadow::util {

class AtomicFile {
 public:
  // Throws meadow::Error "cannot write PATH: why" (a folder, a missing folder, no permission).
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  const std::string& path() const { return path_; }  // the target, as given
  // The file descriptor being written (the temporary file, or the device written in place).
  int fd() const { return fd_; }
  // The descriptor as a stdio stream, owned by this object (made on the first call).
  std::FILE* stream();
  // Hands the descriptor to a library that closes it itself (giflib); commit() then only
  // renames. Call at most once, and not after stream().
  int release_fd();
  // Flushes and closes what this object still owns, then renames the temporary file onto the
  // target. Throws meadow::Error naming the target (a full disk shows up here); the temporary
  // file is removed then too.
  void commit();

 private:
  void close_owned();  // closes the stream or fd if still owned; a failure kept in close_errno_

  std::string path_;    // the target
  std::string target_;  // the file renamed onto (symbolic links followed)
  std::string temp_;    // empty when writing in place
  int fd_ = -1;         // owned unless released_
  std::FILE* stream_ = nullptr;
  bool released_ = false;
  bool committed_ = false;
  int close_errno_ = 0;  // errno of a failed flush/close, 0 if none
};

}  // namespace meadow::util
