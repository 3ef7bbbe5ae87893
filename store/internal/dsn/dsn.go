// Package dsn masks the secrets in a store's connection string for
// messages: the password of a URL's user-info, query parameters that name
// a secret (password=, sslpassword=, …), and the same keys in libpq's
// key=value form. It reads the text as given and never needs it to parse,
// so a malformed string, the one most likely to reach a message, is
// masked too. Each store has one function that says which forms it takes
// (redis.RedactURL, postgres.RedactDSN, sqlite.RedactPath).
package dsn

import (
	"errors"
	"net/url"
	"strings"
)

// Mask stands for a secret in messages.
const Mask = "xxxxx"

// SecretKey reports whether a query parameter or key=value key names a
// secret: password, passwd, pass, pwd, or any key holding "password",
// "secret" or "token" (sslpassword, auth_token, …), in any case.
func SecretKey(k string) bool {
	k = strings.ToLower(k)
	switch k {
	case "pass", "passwd", "pwd":
		return true
	}
	return strings.Contains(k, "password") || strings.Contains(k, "secret") || strings.Contains(k, "token")
}

// URL masks the user-info password (SCHEME://USER:SECRET@…: everything
// between the first ':' and the last '@' before the query) and every
// secret query parameter (see SecretKey; the key percent-decoded) of s.
// A string without "://" has only its query masked.
func URL(s string) string {
	rest, query, hasQuery := strings.Cut(s, "?")
	if i := strings.Index(rest, "://"); i >= 0 {
		auth := rest[i+3:]
		if at := strings.LastIndexByte(auth, '@'); at >= 0 {
			if colon := strings.IndexByte(auth[:at], ':'); colon >= 0 {
				rest = rest[:i+3] + auth[:colon+1] + Mask + auth[at:]
			}
		}
	}
	if !hasQuery {
		return rest
	}
	params := strings.Split(query, "&")
	for j, p := range params {
		k, _, _ := strings.Cut(p, "=")
		if dk, err := url.QueryUnescape(k); err == nil {
			k = dk
		}
		if SecretKey(k) {
			params[j] = p[:strings.IndexByte(p+"=", '=')] + "=" + Mask
		}
	}
	return rest + "?" + strings.Join(params, "&")
}

// KeyValue masks the values of secret keys (see SecretKey) in a libpq
// key=value connection string: `host=/tmp user=u password='a b\'c'`
// becomes `host=/tmp user=u password=xxxxx`. Values are read as libpq
// reads them: single-quoted with \' and \\, or up to the next space, with
// spaces allowed around '='.
func KeyValue(s string) string {
	var b strings.Builder
	i := 0
	for i < len(s) {
		// Spaces, then a key up to '=' or a space.
		for i < len(s) && isSpace(s[i]) {
			b.WriteByte(s[i])
			i++
		}
		start := i
		for i < len(s) && s[i] != '=' && !isSpace(s[i]) {
			i++
		}
		key := s[start:i]
		b.WriteString(key)
		for i < len(s) && isSpace(s[i]) {
			b.WriteByte(s[i])
			i++
		}
		if i >= len(s) || s[i] != '=' {
			continue
		}
		b.WriteByte('=')
		i++
		for i < len(s) && isSpace(s[i]) {
			b.WriteByte(s[i])
			i++
		}
		vstart := i
		if i < len(s) && s[i] == '\'' {
			for i++; i < len(s) && s[i] != '\''; i++ {
				if s[i] == '\\' {
					i++
				}
			}
			i = min(i+1, len(s))
		} else {
			for ; i < len(s) && !isSpace(s[i]); i++ {
				if s[i] == '\\' {
					i++
				}
			}
			i = min(i, len(s))
		}
		if SecretKey(key) {
			b.WriteString(Mask)
		} else {
			b.WriteString(s[vstart:i])
		}
	}
	return b.String()
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// Err returns err with every secret that redact masks in s masked in its
// text too (a driver's message may quote its connection string), or err
// itself when its text holds none. The secrets are the parts of s that
// redact replaces with Mask.
func Err(err error, s string, redact func(string) string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	masked := msg
	for _, secret := range secrets(s, redact(s)) {
		masked = strings.ReplaceAll(masked, secret, Mask)
	}
	if masked == msg {
		return err
	}
	return errors.New(masked)
}

// secrets returns the runs of s that red (s redacted) replaced with Mask,
// found by aligning the two strings around each Mask.
func secrets(s, red string) []string {
	var out []string
	for {
		i := strings.Index(red, Mask)
		if i < 0 {
			break
		}
		// red[:i] == s[:i]; the secret ends where the rest of red (up to
		// its next mask) starts matching s again.
		after := red[i+len(Mask):]
		next := after
		if j := strings.Index(after, Mask); j >= 0 {
			next = after[:j]
		}
		end := len(s)
		if next != "" {
			if k := strings.Index(s[i:], next); k >= 0 {
				end = i + k
			}
		}
		if secret := s[i:end]; secret != "" {
			out = append(out, secret)
			if dec, err := url.QueryUnescape(secret); err == nil && dec != secret {
				out = append(out, dec)
			}
			if q, ok := strings.CutPrefix(secret, "'"); ok { // libpq's quoted value, as the driver holds it
				q = strings.TrimSuffix(q, "'")
				out = append(out, strings.NewReplacer(`\'`, "'", `\\`, `\`).Replace(q))
			}
		}
		s, red = s[end:], after
	}
	return out
}
