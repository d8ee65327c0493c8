/* global document, window, navigator */
// The feed pages' script (docs/console.md "Feeds"): the public URL's copy button, and the
// question a dangerous form (rotate the URL, delete the feed) asks before it is sent. The pages
// work without it: the URL box is a read-only input that can be selected and copied by hand.
(function () {
  'use strict';
  const status = document.getElementById('copy-status');
  document.addEventListener('click', async function (event) {
    const button = event.target.closest('button[data-copy]');
    if (!button) return;
    const input = document.getElementById(button.dataset.copy);
    if (!input) return;
    input.select();
    try {
      await navigator.clipboard.writeText(input.value);
    } catch {
      // No clipboard API (an insecure origin): the selected text is copied the old way.
      document.execCommand('copy');
    }
    button.firstChild.textContent = 'Copied';
    if (status) status.textContent = 'The public URL was copied.';
  });
  document.addEventListener('submit', function (event) {
    const button = event.submitter;
    if (button && button.dataset.confirm && !window.confirm(button.dataset.confirm)) event.preventDefault();
  });
})();
