/* digest: not written yet */
