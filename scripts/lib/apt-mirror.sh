# shellcheck shell=bash
# Sourced by install-deps.sh (and its test): finds the Debian mirror this machine already uses.

# debian_mirror [APT_ETC_DIR]: prints the URI of the first Debian entry that is neither a security nor a
# source entry, read from both formats apt accepts: one-line "deb [options] URI SUITE COMPONENTS" in
# sources.list and sources.list.d/*.list, and deb822 stanzas ("Types:", "URIs:", "Suites:") in
# sources.list.d/*.sources. sources.list comes first, as apt reads it. Files this tooling writes itself
# (trixie.sources) are skipped: they copy the mirror they were given. When no entry is found it says so in
# one line on stderr, with what to do, and returns 1.
debian_mirror() {
  local etc=${1:-/etc/apt} f uri
  for f in "$etc/sources.list" "$etc"/sources.list.d/*.list "$etc"/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    case "${f##*/}" in trixie.sources | forky.sources) continue ;; esac
    # The blank line appended ends a last stanza that has none (even after a line without its newline).
    uri=$({ cat "$f"; printf '\n\n'; } | awk -v deb822="$([[ $f == *.sources ]] && echo 1 || echo 0)" '
      function take(types, u, suites) {
        if (types ~ / deb / && u ~ /^[a-z+]+:/ && u !~ /^cdrom:/ && u !~ /security/ && suites !~ /-security/) {
          print u
          exit
        }
      }
      deb822 && /^[[:space:]]*$/ { take(types, uri, suites); types = uri = suites = ""; next }
      deb822 && $1 == "Types:" { $1 = ""; types = $0 " " }
      deb822 && $1 == "URIs:" { uri = $2 }
      deb822 && $1 == "Suites:" { $1 = ""; suites = $0 }
      !deb822 && $1 == "deb" {
        sub(/^[[:space:]]*deb[[:space:]]+(\[[^]]*\][[:space:]]*)?/, "")
        take(" deb ", $1, $2)
      }
    ')
    if [ -n "$uri" ]; then
      printf '%s\n' "$uri"
      return 0
    fi
  done
  printf "install-deps.sh: cannot find this machine's Debian mirror: neither %s nor %s has a 'deb' entry; add one (e.g. deb http://deb.debian.org/debian bookworm main) and run it again\n" \
    "$etc/sources.list" "$etc/sources.list.d/*.sources" >&2
  return 1
}
