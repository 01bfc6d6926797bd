// tablerun script module "web": URL and e-mail helpers for SQL, in
// JavaScript.
//
//   LOAD MODULE web WITH ('type' = 'javascript', 'path' = 'modules/web.js');
//   SELECT url_host('https://flink.apache.org/what-is-flink/'),
//          url_param('https://x.org/p?a=1&b=two%20words', 'b'),
//          email_domain('Ann@Example.COM');
//
// Every function returns NULL when an argument is NULL or the input does
// not have the asked-for part. Each exported function has a "// sql:" line
// with its SQL signature (see core/modules.go).

const URL_RE = /^([a-z][a-z0-9+.-]*):\/\/(?:[^@\/?#]*@)?([^\/?#:]*)(?::(\d+))?([^?#]*)(?:\?([^#]*))?/i;

// sql: url_host(url STRING) RETURNS STRING
function url_host(url) {
  if (url == null) return null;
  const m = URL_RE.exec(url);
  return m && m[2] !== '' ? m[2].toLowerCase() : null;
}

// sql: url_path(url STRING) RETURNS STRING
function url_path(url) {
  if (url == null) return null;
  const m = URL_RE.exec(url);
  if (!m) return null;
  return m[4] === '' ? '/' : m[4];
}

// sql: url_param(url STRING, name STRING) RETURNS STRING
function url_param(url, name) {
  if (url == null || name == null) return null;
  const m = URL_RE.exec(url);
  if (!m || m[5] === undefined) return null;
  for (const pair of m[5].split('&')) {
    const i = pair.indexOf('=');
    const k = i < 0 ? pair : pair.slice(0, i);
    if (decode(k) === name) return i < 0 ? '' : decode(pair.slice(i + 1));
  }
  return null;
}

// sql: email_domain(email STRING) RETURNS STRING
function email_domain(email) {
  if (email == null) return null;
  const i = email.lastIndexOf('@');
  if (i < 1 || i === email.length - 1) return null;
  return email.slice(i + 1).toLowerCase();
}

function decode(s) {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch (e) {
    return s;
  }
}
