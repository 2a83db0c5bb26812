"""Errors a user can act on: each carries one line of text and the exit code the CLI returns."""

EXIT_OK = 0
EXIT_NO = 1
"""Not solved, illegal, or a verdict the user asked about that came out negative."""
EXIT_BAD_INPUT = 2
EXIT_UNSURE = 3
"""Vision found nothing, or is not sure enough to give a verdict."""


class TantrixError(Exception):
    """Base of every error the command line turns into one line and an exit code."""

    exit_code = EXIT_BAD_INPUT

    def to_dict(self) -> dict:
        """The refusal as JSON-ready data: what `--json` prints on stdout, beside the line on stderr, when there
        is no verdict (exit 3)."""
        return {"error": str(self), "exit_code": self.exit_code}
