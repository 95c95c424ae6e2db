# Shared by the project's scripts (sourced, not run): installing Debian packages only when missing.
# The caller defines `say MESSAGE` for progress lines.

# Runs a command as root: directly when we are root, through sudo otherwise.
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# ensure_debian_packages [--no-install-recommends] PACKAGE...
# Installs the packages that are not installed yet; another apt may hold the lock (waits up to 10 min).
ensure_debian_packages() {
  local opts=() missing=() p
  if [ "${1:-}" = --no-install-recommends ]; then opts+=(--no-install-recommends); shift; fi
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    say "installing Debian packages: ${missing[*]}"
    as_root apt-get -o DPkg::Lock::Timeout=600 update -q
    as_root env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -q "${opts[@]}" -o DPkg::Lock::Timeout=600 "${missing[@]}"
  else
    say "Debian packages: all present"
  fi
}
