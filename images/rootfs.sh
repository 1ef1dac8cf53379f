# Sourced by build.sh (the runner image) and build-server.sh (the server image): the pieces of an offline
# FROM scratch root filesystem taken from this machine. Set `root` (the rootfs directory) before calling.

# Copy one binary (or shared object) to $2 inside the rootfs with every library it links, at the paths the
# loader expects.
copy_binary() {
  src=$(readlink -f "$1")
  mkdir -p "$root$(dirname "$2")"
  cp "$src" "$root$2"
  copy_libraries "$src"
}

# The shared libraries one file links (the loader too), at their own paths inside the rootfs.
copy_libraries() {
  ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | while read -r lib; do
    [ -e "$root$lib" ] && continue
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
  done
}

# A small shell toolset (whatever this host has) in /usr/bin and /bin/sh: what the `bash` workspace tool runs.
copy_toolset() {
  mkdir -p "$root/usr/bin" "$root/bin"
  sh_bin=$(command -v dash || command -v sh)
  copy_binary "$sh_bin" /bin/sh
  for tool in bash cat ls mkdir rm rmdir cp mv head tail wc sort uniq grep sed find xargs touch env \
      tr cut diff dirname basename stat chmod ln sleep tee date awk mktemp readlink realpath seq printf test true false \
      id uname whoami hostname du df nl tac rev paste comm split md5sum sha256sum base64 gzip tar od; do
    path=$(command -v "$tool" 2>/dev/null) || continue
    case $path in /*) ;; *) continue ;; esac # a shell builtin
    copy_binary "$path" "/usr/bin/$tool"
  done
  [ -e "$root/usr/bin/bash" ] && ln -sf /usr/bin/bash "$root/bin/bash"
  return 0
}

# root and nobody: the images run as nobody (65534).
write_users() {
  mkdir -p "$root/etc"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/tmp:/sbin/nologin\n' > "$root/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
}
