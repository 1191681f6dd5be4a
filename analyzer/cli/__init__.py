"""The command line: the entry point and its Ctrl-C handling, argument parsing, one module per subcommand."""
