"""The table's web page: the board, the scores and the verdicts live on every phone (docs/web.md)."""
