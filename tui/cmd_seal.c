/* cmd_seal: not written yet */
