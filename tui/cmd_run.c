/* cmd_run: not written yet */
