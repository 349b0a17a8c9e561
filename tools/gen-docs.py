#!/usr/bin/env python3
"""The man page gxsort(1) and the bash and zsh completions, made from the built binary's
own help (`gxsort help`, `gxsort CMD --help`: the command registry, app/commands.cpp), so
that what is installed says what the binary takes. Run by the build after gxsort is linked
(cmake/install.cmake):

    gen-docs.py GXSORT OUTDIR   # writes OUTDIR/share/man/man1/gxsort.1,
                                # OUTDIR/share/bash-completion/completions/gxsort,
                                # OUTDIR/share/zsh/site-functions/_gxsort
"""
import os
import re
import subprocess
import sys

NAME_LINE = "sort, merge and deduplicate binary files of fixed-size records, on the GPU or the CPU"
# An option line of Boost.Program_options' help: "  -o [ --output ] FILE   text" or
# "  --fan-in K   text"; the value's name is upper case or a list of choices (a|b).
OPTION_RE = re.compile(r"^  (?:-(\w) \[ --([\w-]+) \]|--([\w-]+))(?: ([A-Z]\S*|\S*\|\S*))?(?:\s+(.*))?$")


def run_help(binary, args):
    done = subprocess.run([binary] + args, capture_output=True, text=True, check=True)
    return done.stdout


def parse_commands(usage):
    """[(name, operands, summary)] of the usage's "commands:" list."""
    commands, listing = [], False
    for line in usage.splitlines():
        if line == "commands:":
            listing = True
        elif listing and not line.strip():
            break
        elif listing:
            left, summary = re.split(r"\s{2,}", line.strip(), maxsplit=1)
            words = left.split(" ")
            n = 0
            while n < len(words) and re.fullmatch(r"[a-z]+", words[n]):
                n += 1
            commands.append((" ".join(words[:n]), " ".join(words[n:]), summary))
    return commands


def parse_command_help(text):
    """(paragraph lines, [(group, [option])]) of `gxsort CMD --help`; an option is a dict
    with short, long, value and text."""
    lines = text.splitlines()[2:]  # the usage line and the blank line after it
    about, groups = [], []
    for line in lines:
        match = OPTION_RE.match(line)
        if re.fullmatch(r"[^ ].*:", line):
            groups.append((line[:-1], []))
        elif match and groups:
            short, long_a, long_b, value, text_ = match.groups()
            groups[-1][1].append({"short": short, "long": long_a or long_b, "value": value or "",
                                  "text": text_ or ""})
        elif groups and groups[-1][1] and line.strip():
            groups[-1][1][-1]["text"] += " " + line.strip()
        elif not groups and line.strip():
            about.append(line)
    return about, groups


def collect(binary):
    usage = run_help(binary, ["help"])
    version = run_help(binary, ["--version"]).splitlines()[0]
    commands = []
    for name, operands, summary in parse_commands(usage):
        about, groups = parse_command_help(run_help(binary, name.split() + ["--help"]))
        commands.append({"name": name, "operands": operands, "summary": summary,
                         "about": about, "groups": groups})
    footer = [line for line in usage.splitlines() if line.startswith(("`", "exit codes"))]
    return {"version": version, "commands": commands, "footer": footer}


def roff(text):
    """Text made safe for roff: backslashes, hyphens, and a leading dot or quote."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + text if text[:1] in (".", "'") else text


def option_spec(option):
    names = "--" + option["long"]
    if option["short"]:
        names = "-" + option["short"] + ", " + names
    spec = "\\fB" + roff(names) + "\\fR"
    return spec + (" \\fI" + roff(option["value"]) + "\\fR" if option["value"] else "")


def man_command(command):
    out = [".SS \"gxsort %s\"" % roff((command["name"] + " " + command["operands"]).strip())]
    out += [roff(line) for line in command["about"][:1]]
    if command["about"][1:]:
        out += [".PP"] + [roff(line) for line in command["about"][1:]]
    for group, options in command["groups"]:
        out += [".PP", "\\fI" + roff(group) + "\\fR"]
        for option in options:
            out += [".TP", option_spec(option), roff(option["text"])]
    return out


def man_page(doc):
    out = ['.TH GXSORT 1 "" "%s" "User Commands"' % roff(doc["version"]),
           ".SH NAME", "gxsort \\- " + roff(NAME_LINE),
           ".SH SYNOPSIS", ".B gxsort", ".I COMMAND", "[options]",
           ".SH COMMANDS"]
    for command in doc["commands"]:
        out += [".TP", "\\fB%s\\fR %s" % (roff(command["name"]), roff(command["operands"])),
                roff(command["summary"])]
    out += [".SH OPTIONS"]
    for command in doc["commands"]:
        out += man_command(command)
    out += [".SH \"EXIT STATUS\""] + [roff(line) for line in doc["footer"] if line.startswith("exit")]
    out += [".SH \"SEE ALSO\"", roff(doc["footer"][0]) if doc["footer"] else ""]
    return "\n".join(out) + "\n"


def options_of(command):
    return [option for _, options in command["groups"] for option in options]


def option_words(option):
    words = ["--" + option["long"]]
    return (["-" + option["short"]] if option["short"] else []) + words


def bash_value_case(doc):
    """The case arms that complete an option's value: its choices, else files."""
    choices = {}
    for command in doc["commands"]:
        for option in options_of(command):
            if "|" in option["value"]:
                for word in option_words(option):
                    choices.setdefault(word, set()).update(option["value"].split("|"))
    arms = ["        %s) COMPREPLY=($(compgen -W '%s' -- \"$cur\")); return ;;" % (word, " ".join(sorted(values)))
            for word, values in sorted(choices.items())]
    return "\n".join(arms)


def bash_completion(doc):
    names = " ".join(c["name"].split()[0] for c in doc["commands"])
    option_arms = "\n".join("    '%s') words_=\"%s\"; valued_=\"%s\" ;;" % (
        c["name"], " ".join(w for o in options_of(c) for w in option_words(o)),
        " ".join(w for o in options_of(c) if o["value"] for w in option_words(o))) for c in doc["commands"])
    return BASH_TEMPLATE % {"names": names, "option_arms": option_arms, "value_arms": bash_value_case(doc)}


BASH_TEMPLATE = r"""# bash completion for gxsort (made by tools/gen-docs.py from gxsort's help)
_gxsort() {
  local cur prev cmd words_ valued_
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W '%(names)s help' -- "$cur")); return
  fi
  cmd=${COMP_WORDS[1]}
  if [ "$cmd" = graph ]; then
    if [ "$COMP_CWORD" -eq 2 ]; then COMPREPLY=($(compgen -W 'build' -- "$cur")); return; fi
    cmd="graph build"
  fi
  case $cmd in
%(option_arms)s
  esac
  case " $valued_ " in
    *" $prev "*)
      case $prev in
%(value_arms)s
      esac
      COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$words_" -- "$cur")); return
  fi
  COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _gxsort gxsort
"""


def zsh_quote(text):
    """A description for _arguments/_describe: no brackets or colons, in single quotes."""
    text = text.split(" (")[0].split(": ")[0].split(";")[0]
    text = re.sub(r"[\[\]:]", " ", text).replace("'", "'\\''")
    return " ".join(text.split())


def zsh_spec(option):
    """One _arguments spec: '(-o --output)'{-o,--output}'[text]:file:_files'."""
    words = option_words(option)
    value = option["value"]
    action = ""
    if "|" in value:
        action = ":value:(%s)" % " ".join(value.split("|"))
    elif value:  # files for FILE, DIR, LEVELS; nothing to offer for a number or a size
        files = {"DIR": "_files -/", "FILE": "_files", "LEVELS": "_files"}.get(value, " ")
        action = ":%s:%s" % (re.sub(r"[^A-Za-z].*", "", value).lower(), files)
    text = "'[%s]%s'" % (zsh_quote(option["text"]), action)
    if option["long"] in ("tmp-dir", "key"):  # repeatable
        return "'*'{%s}%s" % (",".join(words), text) if len(words) > 1 else "'*%s'%s" % (words[0], text)
    if len(words) > 1:
        return "'(%s)'{%s}%s" % (" ".join(words), ",".join(words), text)
    return "'%s'%s" % (words[0], text)


def zsh_completion(doc):
    described = "\n".join("    '%s:%s'" % (c["name"].split()[0], zsh_quote(c["summary"])) for c in doc["commands"])
    arms = []
    for command in doc["commands"]:
        specs = " \\\n        ".join(zsh_spec(o) for o in options_of(command))
        arms.append("    '%s')\n      _arguments -s \\\n        %s \\\n        '*:file:_files' ;;"
                    % (command["name"], specs))
    return ZSH_TEMPLATE % {"described": described, "arms": "\n".join(arms)}


ZSH_TEMPLATE = r"""#compdef gxsort
# zsh completion for gxsort (made by tools/gen-docs.py from gxsort's help)
_gxsort() {
  local -a commands
  commands=(
%(described)s
    'help:the usage, or a command'\''s options'
  )
  if (( CURRENT == 2 )); then
    _describe -t commands 'gxsort command' commands; return
  fi
  local cmd=$words[2]
  if [[ $cmd == graph ]]; then
    if (( CURRENT == 3 )); then compadd build; return; fi
    cmd='graph build'
    shift words; (( CURRENT-- ))
  fi
  shift words; (( CURRENT-- ))
  case $cmd in
%(arms)s
    *) _files ;;
  esac
}
_gxsort "$@"
"""


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: gen-docs.py GXSORT OUTDIR")
    binary, outdir = sys.argv[1], sys.argv[2]
    doc = collect(binary)
    write(os.path.join(outdir, "share/man/man1/gxsort.1"), man_page(doc))
    write(os.path.join(outdir, "share/bash-completion/completions/gxsort"), bash_completion(doc))
    write(os.path.join(outdir, "share/zsh/site-functions/_gxsort"), zsh_completion(doc))


if __name__ == "__main__":
    main()
