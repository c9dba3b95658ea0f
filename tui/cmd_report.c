/* cmd_report: not written yet */
