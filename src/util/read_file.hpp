// Reading a file a user named (a command-line path, a file a request names): one bounded,
// type-checked way in. The file is opened with O_NONBLOCK, so a FIFO never blocks the open;
// fstat then refuses what is not a regular file (a folder, a FIFO, a device, a socket) by
// name; and no more than a stated cap is read, checked both against the size before reading
// and while reading (a file that grows, or /proc files whose size says 0).
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <string>

namespace meadow::util {

// The default cap of read_file: far above any exam set, tools or actions file.
inline constexpr size_t kMaxReadFile = size_t(64) << 20;

// What a file type is, in words: "a folder", "a FIFO (named pipe)", "a character device",
// "a block device", "a socket", "a symbolic link", "a regular file", "not a regular file".
std::string file_kind(mode_t mode);

// Opens path read-only (O_NONBLOCK cleared again once it is known to be a regular file,
// O_CLOEXEC, O_NOCTTY) and fstat's it into st. Returns the descriptor; the caller closes it.
// Throws meadow::Error "cannot read PATH: why", why being the errno's text or
// "it is a folder, not a regular file" and the like.
int open_regular_file(const std::string& path, struct stat& st);

// The whole file, at most max_bytes. Throws meadow::Error "cannot read PATH: ..." when it
// cannot be opened, is not a regular file, or holds (or grows to) more than max_bytes
// ("larger than 64 MiB").
std::string read_file(const std::string& path, size_t max_bytes = kMaxReadFile);

}  // namespace meadow::util
