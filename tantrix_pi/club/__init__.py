"""The club: every table's feed from one MQTT broker, on one page (docs/club.md)."""
