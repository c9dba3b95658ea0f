/* headless: not written yet */
