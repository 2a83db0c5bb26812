"""What the club's page shows of each table (a card) and of the finished games (the standings), in the language of the
moment. The board is drawn from the state's board by the table page's own SVG (web/svg.py: `<g class="tile"
data-tile=...>`), never taken from the message as markup."""

from __future__ import annotations

from tantrix_pi.board import Board, BoardError
from tantrix_pi.club.tables import Club, Standing, Table
from tantrix_pi.i18n import _, pgettext, player_name
from tantrix_pi.web.svg import board_svg


def mode_name(mode: str | None) -> str:
    return {"game": _("Game"), "discovery": _("Discovery puzzle"), "rainbow": _("Rainbow puzzle"),
            "solitaire": _("Solitaire"), "four-lines": pgettext("mode", "Four lines"),
            "four-loops": pgettext("mode", "Four loops"), "gobble": pgettext("mode", "Gobble"),
            "free": _("Free play")}.get(mode or "", "")


def name_of(letter: str) -> str:
    try:
        return player_name(letter)
    except KeyError:  # not a colour of ours: shown as it came
        return str(letter)


def outcome_text(winners: list[str]) -> str:
    names = [name_of(w) for w in winners]
    if len(names) == 1:
        return _("Game over: {player} wins.").format(player=names[0])
    return _("Game over: a tie between {players}.").format(players=_(" and ").join(names))


def scores_text(scores: dict) -> str:
    return ", ".join(f"{name_of(c)} {s}" for c, s in scores.items())


class Cards:
    """Each table's card; a board is drawn again only when its table's state changed (not at each announcement)."""

    def __init__(self, club: Club) -> None:
        self.club = club
        self._svg: dict[str, tuple[dict | None, str, int]] = {}

    def card(self, table: Table) -> dict:
        state = table.state or {}
        tiles, svg = self._board(table, state)
        players = [c for c in state.get("players") or [] if isinstance(c, str)]
        scores = state.get("scores") or {}
        over, turn = bool(state.get("over")), state.get("turn")
        if over:
            status = outcome_text(state.get("winners") or [])
        elif turn:
            status = _("{player} to play.").format(player=name_of(turn))
        else:
            status = ""
        said = table.announcement()
        return {
            "name": table.name, "online": self.club.online(table), "game": state.get("game") or 0,
            "mode": mode_name(state.get("mode")), "status": status, "tiles": tiles, "svg": svg,
            "message": said.get("text", "") if said else "", "said": said.get("t", "") if said else "",
            "players": [{"colour": c, "name": name_of(c), "score": scores.get(c, 0), "to_move": c == turn and not over}
                        for c in players],
            "games": [{"game": n, "result": outcome_text((g.get("over") or {}).get("winners") or []),
                       "scores": scores_text((g.get("over") or {}).get("scores") or {}),
                       "url": f"/api/tables/{table.name}/games/{n}"}
                      for n, g in sorted(table.games.items())],
        }

    def _board(self, table: Table, state: dict) -> tuple[int, str]:
        cached = self._svg.get(table.name)
        if cached is not None and cached[0] is table.state:  # each state message is a new dict
            return cached[2], cached[1]
        try:
            board = Board.from_dict(state.get("board") or {"format": "tantrix-board/1", "tiles": []})
            forced = [(int(f["cell"][0]), int(f["cell"][1])) for f in state.get("forced") or []]
            last = state.get("last")
            last = (int(last["q"]), int(last["r"])) if last else None
            doubted = [(int(c[0]), int(c[1])) for c in state.get("doubted") or []]
        except (BoardError, TypeError, KeyError, IndexError, ValueError):  # not a board a referee of ours sends
            board, forced, last, doubted = Board(), [], None, []
        svg = board_svg(board, forced, last, doubted, label=_("The board of table {table}").format(table=table.name))
        self._svg[table.name] = (table.state, svg, len(board))
        return len(board), svg


def standings_rows(standings: list[Standing]) -> list[dict]:
    """The standings as the page lists them."""
    return [{"rank": i + 1, "table": s.table, "player": name_of(s.player), "colour": s.player, "games": s.games,
             "wins": f"{s.wins:.2f}".rstrip("0").rstrip("."), "points": s.points} for i, s in enumerate(standings)]
