"""The discrete comparison: a whole-task run beside the continuous solution, production variants beside DRF."""
