/* render: not written yet */
