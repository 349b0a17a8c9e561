# The installed completions and man page against the binary's own help, read here
# independently of tools/gen-docs.py: bash completes every command of `gxsort help`, every
# option of `gxsort CMD --help` and the choices of an option's a|b|c value, and the zsh
# completion and the man page name every option of every command.
#   usage: bash tests/install/test_completions.sh BUILD/gxsort DOCS (BUILD/docs-made)
DOCS=$(cd "${2:?usage: test_completions.sh GXSORT DOCS}" && pwd)
source "$(dirname "${BASH_SOURCE[0]}")/../cli/lib.sh"  # cds to $WORK
source "$DOCS/share/bash-completion/completions/gxsort"

# The words bash offers for the command line "$@" (its last word being completed).
offered() {
  COMP_WORDS=(gxsort "$@")
  COMP_CWORD=$#
  COMPREPLY=()
  _gxsort
  printf '%s\n' "${COMPREPLY[@]}" | sort -u
}

commands=$("$GX" help | awk '/^commands:/ {on = 1; next} on && NF == 0 {exit} on {print}' |
           awk '{name = ""; for (i = 1; i <= NF && $i ~ /^[a-z]+$/; i++) name = name (name ? " " : "") $i; print name}')
want=$( (echo "$commands" | cut -d' ' -f1; echo help) | sort -u)
got=$(offered "")
if [[ "$want" == "$got" ]]; then pass "bash: commands"; else fail "bash: commands" "want $(echo $want), got $(echo $got)"; fi

bad=()
while read -r cmd; do
  help=$("$GX" $cmd --help)
  options=$(echo "$help" | grep -oE '^  (-[A-Za-z] \[ --[a-z-]+ \]|--[a-z-]+)' | tr -d '[]' | tr ' ' '\n' | grep . | sort -u)
  [[ -n "$options" ]] || bad+=("$cmd: no options read from its help")
  [[ "$(offered $cmd -)" == "$options" ]] || bad+=("bash: $cmd's options")
  while read -r option; do
    grep -q -- "$option" "$DOCS/share/zsh/site-functions/_gxsort" || bad+=("zsh: $cmd $option")
    grep -q -- "${option//-/\\\\-}" "$DOCS/share/man/man1/gxsort.1" || bad+=("man: $cmd $option")
  done <<<"$options"
  # An option whose value is one of a|b|c: those words complete it.
  while read -r option choices; do
    [[ -n "$option" ]] || continue
    [[ "$(offered $cmd "$option" "")" == "$(tr '|' '\n' <<<"$choices" | sort -u)" ]] || bad+=("bash: $cmd $option's values")
  done < <(echo "$help" | grep -oE '^  --[a-z-]+ [a-z0-9-]+(\|[a-z0-9-]+)+')
done <<<"$commands"
if ((${#bad[@]} == 0)); then pass "bash, zsh and man: every command's options"; else fail "bash, zsh and man: every command's options" "${bad[*]}"; fi
finish
