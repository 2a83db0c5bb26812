"""The stored games: records, the game list, and every step of a replay (read-only, beside the referee)."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tantrix_pi.i18n import _
from tantrix_pi.web.responses import error

LAST_GAME = 2**63 - 1
"""SQLite's largest integer: no game is numbered beyond it (the route takes any number of digits)."""


async def read_store(request: Request, work) -> Response:
    """`work(store)`'s answer as JSON, from a read-only connection of its own in a worker thread; 404 with the
    store's line when there is no database, game or step."""
    from tantrix_pi.live.store import Store, StoreError

    game = request.path_params.get("game")
    if game is not None and game > LAST_GAME:
        return error(404, _("there is no game {game}").format(game=game))

    def run():
        path = request.app.state.site.state_db
        if path is None:
            raise StoreError(_("no game database here"))
        store = Store(path, read_only=True)
        try:
            return work(store)
        finally:
            store.close()

    try:
        return JSONResponse(await run_in_threadpool(run))
    except StoreError as e:
        return error(404, str(e))


async def current_game(request: Request) -> Response:
    def work(store):
        from tantrix_pi.live.store import StoreError

        game = store.current_game() or store.last_game()
        if game is None:
            raise StoreError(_("no game recorded yet"))
        return store.record(game[0])

    return await read_store(request, work)


async def games(request: Request) -> Response:
    def work(store):
        out = store.games()
        for g in out:  # who won, once the game is over
            over = [e.data for e in store.events(g["game"]) if e.kind == "game_over"]
            g["winners"] = over[-1]["winners"] if over else []
        return {"games": out}

    return await read_store(request, work)


async def game(request: Request) -> Response:
    return await read_store(request, lambda store: store.record(request.path_params["game"]))


async def steps(request: Request) -> Response:
    from tantrix_pi.live.replay import replay

    def work(store):
        n = request.path_params["game"]
        game = replay(store, n)
        return {"game": n, "setup": store.setup(n), "moves": game.moves,
                "steps": [{"tiles": len(s.board), "move": s.moves, "events": [e.text for e in s.events]}
                          for s in game.steps]}

    return await read_store(request, work)


async def step(request: Request) -> Response:
    from tantrix_pi.live.replay import replay
    from tantrix_pi.live.store import StoreError
    from tantrix_pi.web.state import SCORED_MODES, breakdown
    from tantrix_pi.web.svg import board_svg

    n, i = request.path_params["game"], request.path_params["step"]

    def work(store):
        game = replay(store, n)
        if not 0 <= i < len(game.steps):
            raise StoreError(_("game {game} has no step {step} (0..{last})").format(game=n, step=i,
                                                                                  last=len(game.steps) - 1))
        s = game.steps[i]
        before = game.steps[i - 1].board if i else s.board
        added = sorted(s.board.cells - before.cells)
        last = added[-1] if len(added) == 1 else None
        scored = breakdown(s.board, s.scores) if store.setup(n).get("mode", "game") in SCORED_MODES else {}
        paths = [(c, b.path.cells, b.path.loop) for c, b in scored.items() if b.path is not None]
        forced = [tuple(f["cell"]) for f in s.forced]
        return {"step": i, "move": s.moves, "moves": len(game.moves), "board": s.board.to_dict(),
                "svg": board_svg(s.board, forced, last, illegal=s.illegal, paths=paths),
                "events": [{"kind": e.kind, "text": e.text, "data": e.data} for e in s.events],
                "scores": s.scores, "breakdown": {c: {"line": b.line, "loop": b.loop, "score": b.score}
                                                  for c, b in scored.items()},
                "forced": s.forced, "illegal": s.illegal, "to_move": s.to_move, "must_fill": s.must_fill,
                "players": store.setup(n).get("players", [])}

    return await read_store(request, work)


def routes() -> list[Route]:
    return [Route("/api/game", current_game), Route("/api/games", games), Route("/api/games/{game:int}", game),
            Route("/api/games/{game:int}/steps", steps), Route("/api/games/{game:int}/steps/{step:int}", step)]
