"""The `tantrix-pi` command line.

Each module of `tantrix_pi.commands` adds its sub-commands through `register(cli)`; a handler returns
the exit code. Errors a user can act on (`TantrixError`) become one line on stderr and their exit code.
The global `--lang CODE` (else the gettext environment) sets the language of everything it says.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys

from tantrix_pi import __version__, commands, i18n
from tantrix_pi.errors import EXIT_BAD_INPUT, EXIT_UNSURE, TantrixError
from tantrix_pi.i18n import _


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line (naming the command and `--help`), exit code 2."""

    def error(self, message: str):
        """Print one line instead of the usage block, and exit 2."""
        self.exit(EXIT_BAD_INPUT, _("{prog}: {message} (see {prog} --help)").format(prog=self.prog, message=message)
                  + "\n")


class Cli:
    """The argument parser, with named groups (`board`, `puzzle`, ...) that several modules extend."""

    def __init__(self) -> None:
        self.parser = Parser(prog="tantrix-pi", description=_("Tantrix referee for a camera over a table."))
        self.parser.add_argument("--version", action="version", version=f"tantrix-pi {__version__}",
                                 help=_("show the version and exit"))
        self.parser.add_argument("--lang", metavar="CODE", help=_(
            "the language of everything said: {languages} (default: from LANGUAGE, LC_ALL, LC_MESSAGES, "
            "LANG, else en)").format(languages=", ".join(i18n.LANGUAGES)))
        self.commands = self.parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
        self._groups: dict[str, argparse._SubParsersAction] = {}

    def command(self, name: str, help: str, handler, parent) -> argparse.ArgumentParser:
        """Add a sub-command to `parent` (a group) whose `handler(args) -> int` runs it."""
        p = parent.add_parser(name, help=help, description=help)
        p.set_defaults(handler=handler)
        return p

    def top(self, name: str, handler) -> argparse.ArgumentParser:
        """Add the top-level command `name` (its help from `commands.COMMANDS`) whose `handler(args) -> int` runs it."""
        p = self.outline(name)
        p.set_defaults(handler=handler)
        return p

    def group(self, name: str) -> argparse._SubParsersAction:
        """The sub-commands of `tantrix-pi NAME ...` (its help from `commands.COMMANDS`), created on first use."""
        if name not in self._groups:
            self._groups[name] = self.outline(name).add_subparsers(dest=f"{name}_command", metavar="COMMAND",
                                                                   required=True)
        return self._groups[name]

    def outline(self, name: str) -> argparse.ArgumentParser:
        """The top-level command `name` with its line of help and nothing else yet."""
        help = _(commands.COMMANDS[name].help)
        return self.commands.add_parser(name, help=help, description=help)


def build(command: str | None = None) -> Cli:
    """The parser of the top-level `command`, from the modules that add it (`commands.COMMANDS`); for None, or a
    name that is none, every command as its line of help only (what `--help` and the error list), importing none."""
    cli = Cli()
    known = commands.COMMANDS.get(command)
    if known is None:
        for name in commands.COMMANDS:
            cli.outline(name)
    else:
        for module in known.modules:
            importlib.import_module(f"{commands.__name__}.{module}").register(cli)
    return cli


def early_options(argv: list[str]) -> argparse.Namespace:
    """`--lang` and the command's name, read before the parser is built (its help is then translated, and only
    that command's modules are imported); `--version` before the command is answered here."""
    early = Parser(prog="tantrix-pi", add_help=False)
    early.add_argument("--lang")
    early.add_argument("--version", action="version", version=f"tantrix-pi {__version__}")
    early.add_argument("rest", nargs=argparse.REMAINDER)
    return early.parse_known_args(argv)[0]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        early = early_options(argv)
        i18n.use(i18n.choose(early.lang))
        args = build(early.rest[0] if early.rest else None).parser.parse_args(argv)
    except SystemExit as e:  # --help (0) or a usage error, already printed as one line (2)
        return e.code if isinstance(e.code, int) else EXIT_BAD_INPUT
    try:
        return args.handler(args)
    except TantrixError as e:
        print(f"tantrix-pi: {e}", file=sys.stderr)
        if getattr(args, "json", False) and e.exit_code == EXIT_UNSURE:
            print(json.dumps(e.to_dict()))  # no verdict: a tool reading stdout learns why (bad input: stderr only)
        return e.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader (`| head -1`) went away: stop quietly, and keep Python's final flush from failing again
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115
        return 0


if __name__ == "__main__":
    sys.exit(main())
