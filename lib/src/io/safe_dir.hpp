// Directories other users can write to (a 1777 /tmp, a shared scratch directory, the
// directory of an output): what gxsort creates there is private (0700 directories, 0600
// files), and what it finds there is used only when it is the caller's own, checked
// through a descriptor (fstat, never lstat-then-open) and used through that descriptor
// (openat, unlinkat, mkdirat with O_NOFOLLOW): no path is resolved again between the
// check and the use, no link is followed, and nothing is opened that could block (a
// FIFO, a device).
#pragma once
#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

#include "io/unique_fd.hpp"

namespace gxsort::io {

// The user name of `uid` ("uid 1234" when it has none).
std::string user_name(uid_t uid);

// Why `st` is not the caller's own private directory ("" when it is: a directory owned
// by the effective user, not writable by its group or others); `path` names it.
std::string not_own_private_dir(const struct stat& st, const std::string& path);

// Opens the directory `name` in `parent` (a descriptor, or AT_FDCWD) without following a
// link at its last component and without blocking; -1 with errno otherwise (ENOTDIR for
// a file, ELOOP for a link).
int open_dir_at(int parent, const std::string& name);

// Creates the private directory `name` in `parent` (0700, whatever the umask), or opens
// the existing one when it is the caller's own (not_own_private_dir). Anything else of
// that name (another user's directory, a link, a file) is left as it is and refused:
// Error(io) "PATH: ... (owned by USER): not this user's own directory". `path` is the
// name messages use; *created says whether it was made now.
UniqueFd make_private_dir(int parent, const std::string& name, const std::string& path, bool* created = nullptr);

// Opens the file `name` in `dir` for `flags` (O_RDONLY, O_RDWR, ..., with O_CREAT and
// O_EXCL for a new file, created 0600) without following a link or blocking; an existing
// file must be a regular file owned by the caller. -1 with errno otherwise: ELOOP (a
// link), EACCES (another user's), EINVAL (not a regular file). The descriptor is
// blocking again when returned.
int open_own_file_at(int dir, const std::string& name, int flags);

// The names of the entries of the directory `dir` (not "." and ".."), read through a
// descriptor of their own: `dir` stays open, at its place. False when it cannot be read.
bool entry_names(int dir, std::vector<std::string>& names);

// Removes the entries of the directory `dir` that the caller owns (every entry when
// `any_owner`), except `keep`: files and links by unlinkat, directories recursively
// through their own descriptors. A link is removed, never followed; another user's
// entries stay. Returns the number of entries left (0: the directory is empty).
size_t remove_own_entries(int dir, const std::string& keep = "", bool any_owner = false);

// The directory `name` in `parent`, when it is the caller's (any owner's when
// `any_owner`) and not a link: its entries as remove_own_entries removes them, then the
// directory itself. True when it is gone.
bool remove_own_tree(int parent, const std::string& name, bool any_owner = false);

}  // namespace gxsort::io

namespace gxsort::io {

// The caller's own private directory `name` in `parent`, opened, not created: an empty
// descriptor when there is no entry of that name; anything else there (a link, a file,
// another user's or a shared directory) refused as make_private_dir refuses it.
UniqueFd open_private_dir(int parent, const std::string& name, const std::string& path);

// The one line for a file open_own_file_at(dir, name, ...) refused with `err`: "PATH: is
// a symbolic link owned by bob, not this user's own file; it is left as it is" (another
// errno: "PATH: WHAT: strerror").
std::string own_file_refusal(int dir, const std::string& name, const std::string& path, const std::string& what, int err);

// Why entries in the directory `st` (named `path`) could be renamed or removed by
// another user ("" when they cannot: it is the caller's or root's, and no one else may
// write to it, or it has the sticky bit, as a 1777 /tmp). What is found there by name
// is only what the caller left there when this holds.
std::string entries_not_safe_in(const struct stat& st, const std::string& path);

}  // namespace gxsort::io
