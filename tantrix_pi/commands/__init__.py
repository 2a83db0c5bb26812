"""Sub-commands of `tantrix-pi`: every module here defines `register(cli)`."""
