/**
 * The page's one script (its hash is in the page's Content-Security-Policy). It shows the forms,
 * sends each as a real request to this service with `fetch`, and shows the answer. The credential
 * typed at the top stays in that field: never in storage, a cookie or the address.
 */
export const PAGE_SCRIPT = `'use strict';
(() => {
  const credential = document.getElementById('credential');
  const credentialBox = document.getElementById('credential-box');
  credentialBox.hidden = false;
  // Enter in the field must not submit anything: the page's policy allows no form submission.
  credentialBox.addEventListener('submit', (event) => event.preventDefault());

  function target(form, data) {
    let path = form.dataset.path;
    const query = new URLSearchParams();
    const headers = new Headers();
    for (const [name, value] of data) {
      const at = name.indexOf(':');
      const place = name.slice(0, at);
      const key = name.slice(at + 1);
      if (place === 'path') path = path.replace('{' + key + '}', encodeURIComponent(value));
      else if (value === '') continue;
      else if (place === 'query') query.append(key, value);
      else if (place === 'header') headers.set(key, value);
    }
    const search = query.toString();
    return { url: path + (search === '' ? '' : '?' + search), headers };
  }

  function pretty(text) {
    try {
      return JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      return text;
    }
  }

  async function send(form) {
    const data = new FormData(form);
    const { url, headers } = target(form, data);
    const token = credential.value.trim();
    if (token !== '') headers.set('Authorization', 'Bearer ' + token);
    const init = { method: form.dataset.method, headers, cache: 'no-store' };
    if (data.has('body')) {
      headers.set('Content-Type', data.get('content-type'));
      init.body = data.get('body');
    }
    const answer = form.querySelector('.answer');
    const status = answer.querySelector('.answer-status');
    const shown = answer.querySelector('.answer-headers');
    const body = answer.querySelector('.answer-body');
    answer.hidden = false;
    status.className = 'answer-status';
    status.textContent = 'Sending ' + init.method + ' ' + url + '…';
    shown.textContent = '';
    body.textContent = '';
    try {
      const response = await fetch(url, init);
      const text = await response.text();
      status.textContent = response.status + ' ' + response.statusText;
      status.classList.add('status-' + String(response.status).charAt(0) + 'xx');
      shown.textContent = [...response.headers].map(([name, value]) => name + ': ' + value).join('\\n');
      body.textContent = text === '' ? '(no body)' : pretty(text);
    } catch (error) {
      status.textContent = 'The request failed: ' + error.message;
      status.classList.add('status-5xx');
    }
  }

  for (const form of document.querySelectorAll('form.try')) {
    form.hidden = false;
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      send(form);
    });
  }
})();
`;
