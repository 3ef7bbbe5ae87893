package agentgazer

import (
	"sort"
	"unicode"
)

// JavaScript's String.prototype.toLowerCase, as Node.js (V8 with ICU)
// implements it: the full, locale-independent Unicode lowercase mapping,
// code point by code point, with the SpecialCasing rules:
//
//   - U+0130 LATIN CAPITAL LETTER I WITH DOT ABOVE → U+0069 U+0307 (the only
//     unconditional mapping whose lowercase is longer than one code point);
//   - U+03A3 GREEK CAPITAL LETTER SIGMA → U+03C2 ς when Final_Sigma holds,
//     else U+03C3 σ;
//   - lone surrogates are left alone.
//
// Go's strings.ToLower applies only the simple mappings (İ → i, Σ → σ). The
// reference is the Node.js the vectors were generated with (v20.20.2, ICU
// 78.2, Unicode 17.0); Go 1.26's unicode package is Unicode 15.0.0, so the
// mappings and properties that Unicode 16.0 and 17.0 added or changed are
// listed below, found by comparing every code point against Node
// (testdata/unicode/*.txt, checked by TestLowerAllCodePoints).

// lowerAdded holds the Unicode 16.0/17.0 simple lowercase mappings missing
// from Go's Unicode 15.0.0 tables: from Lo to Hi (inclusive, step 1), code
// point c lowercases to c+Delta; sorted by Lo.
var lowerAdded = []struct {
	Lo, Hi rune
	Delta  rune
}{
	{0x1C89, 0x1C89, 1},                   // → U+1C8A (Cyrillic)
	{0xA7CB, 0xA7CB, 0x0264 - 0xA7CB},     // → U+0264 ɤ
	{0xA7CC, 0xA7CC, 1},                   // → U+A7CD
	{0xA7CE, 0xA7CE, 1},                   // → U+A7CF
	{0xA7D2, 0xA7D2, 1},                   // → U+A7D3
	{0xA7D4, 0xA7D4, 1},                   // → U+A7D5
	{0xA7DA, 0xA7DA, 1},                   // → U+A7DB
	{0xA7DC, 0xA7DC, 0x019B - 0xA7DC},     // → U+019B ƛ
	{0x10D50, 0x10D65, 0x20},              // Garay
	{0x16EA0, 0x16EB8, 0x16EBB - 0x16EA0}, // Beria Erfe
}

// casedDelta and ignorableDelta correct Go's Unicode 15.0.0 view of the two
// properties Final_Sigma looks at, for code points whose status changed in
// Unicode 16.0/17.0 (sorted by Lo; Is is the status in Unicode 17.0).
var casedDelta = []propRange{
	{0x0295, 0x0295, false}, // ʕ is no longer a cased letter
	{0x1C89, 0x1C8A, true},
	{0xA7CB, 0xA7CF, true},
	{0xA7D2, 0xA7D2, true},
	{0xA7D4, 0xA7D4, true},
	{0xA7DA, 0xA7DC, true},
	{0x10D50, 0x10D65, true},
	{0x10D70, 0x10D85, true},
	{0x16EA0, 0x16EB8, true},
	{0x16EBB, 0x16ED3, true},
}

var ignorableDelta = []propRange{
	{0x0897, 0x0897, true},
	{0x1ACF, 0x1ADD, true},
	{0x1AE0, 0x1AEB, true},
	{0xA7F1, 0xA7F1, true},
	{0x10D4E, 0x10D4E, true},
	{0x10D69, 0x10D6D, true},
	{0x10D6F, 0x10D6F, true},
	{0x10EC5, 0x10EC5, true},
	{0x10EFA, 0x10EFC, true},
	{0x113BB, 0x113C0, true},
	{0x113CE, 0x113CE, true},
	{0x113D0, 0x113D0, true},
	{0x113D2, 0x113D2, true},
	{0x113E1, 0x113E2, true},
	{0x1171E, 0x1171E, false}, // AHOM CONSONANT SIGN MEDIAL RA, no longer Mn
	{0x11B60, 0x11B60, true},
	{0x11B62, 0x11B64, true},
	{0x11B66, 0x11B66, true},
	{0x11DD9, 0x11DD9, true},
	{0x11F5A, 0x11F5A, true},
	{0x1611E, 0x16129, true},
	{0x1612D, 0x1612F, true},
	{0x16D40, 0x16D42, true},
	{0x16D6B, 0x16D6C, true},
	{0x16FF2, 0x16FF3, true},
	{0x1E5EE, 0x1E5EF, true},
	{0x1E6E3, 0x1E6E3, true},
	{0x1E6E6, 0x1E6E6, true},
	{0x1E6EE, 0x1E6EF, true},
	{0x1E6F5, 0x1E6F5, true},
	{0x1E6FF, 0x1E6FF, true},
}

// propRange says that the code points Lo..Hi have (Is) or lack the property.
type propRange struct {
	Lo, Hi rune
	Is     bool
}

// lookupDelta finds r in the sorted table d.
func lookupDelta(d []propRange, r rune) (is, found bool) {
	i := sort.Search(len(d), func(i int) bool { return d[i].Hi >= r })
	if i < len(d) && d[i].Lo <= r {
		return d[i].Is, true
	}
	return false, false
}

// wordBreakMid holds the code points with Word_Break MidLetter, MidNumLet or
// Single_Quote (UAX #29), which are case-ignorable; Go has no Word_Break
// tables.
var wordBreakMid = []rune{
	0x0027, 0x002E, 0x003A, 0x00B7, 0x0387, 0x055F, 0x05F4, 0x2018, 0x2019,
	0x2024, 0x2027, 0xFE13, 0xFE52, 0xFE55, 0xFF07, 0xFF0E, 0xFF1A,
}

// isCaseIgnorable reports the Unicode Case_Ignorable property: Mn, Me, Cf,
// Lm, Sk, or Word_Break MidLetter/MidNumLet/Single_Quote.
func isCaseIgnorable(r rune) bool {
	if r < 0x80 {
		return r == '\'' || r == '.' || r == ':' || r == '^' || r == '`'
	}
	if is, ok := lookupDelta(ignorableDelta, r); ok {
		return is
	}
	for _, m := range wordBreakMid {
		if r == m {
			return true
		}
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

// isCased reports the Unicode Cased property: Lowercase, Uppercase or Lt.
func isCased(r rune) bool {
	if r < 0x80 {
		return r|0x20 >= 'a' && r|0x20 <= 'z'
	}
	if is, ok := lookupDelta(casedDelta, r); ok {
		return is
	}
	return unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Other_Lowercase, unicode.Other_Uppercase)
}

// sigmaContext classifies r for the Final_Sigma scan the way ICU does
// (ucase_getTypeOrIgnorable): case-ignorable characters are skipped even
// when they are also cased.
func sigmaContext(r rune) (ignorable, cased bool) {
	if isCaseIgnorable(r) {
		return true, false
	}
	return false, isCased(r)
}

// finalSigma reports whether the capital sigma at u[i] is word-final: it is
// preceded by a cased letter (skipping case-ignorable characters) and not
// followed by one (skipping the same).
func finalSigma(u []uint16, i int) bool {
	preceded := false
	for j := i; j > 0; {
		r, n := runeBefore(u, j)
		j -= n
		ign, cased := sigmaContext(r)
		if ign {
			continue
		}
		preceded = cased
		break
	}
	if !preceded {
		return false
	}
	for j := i + 1; j < len(u); {
		r, n := runeAt(u, j)
		j += n
		ign, cased := sigmaContext(r)
		if ign {
			continue
		}
		return !cased
	}
	return true
}

// lowerRune is the simple lowercase mapping of r in Unicode 17.0.
func lowerRune(r rune) rune {
	if r >= 0x1C89 && r <= 0x16EB8 {
		i := sort.Search(len(lowerAdded), func(i int) bool { return lowerAdded[i].Hi >= r })
		if i < len(lowerAdded) && lowerAdded[i].Lo <= r {
			return r + lowerAdded[i].Delta
		}
	}
	return unicode.ToLower(r)
}

// appendLower appends JavaScript's src.toLowerCase() to dst. dst must not
// overlap src.
func appendLower(dst, src []uint16) []uint16 {
	for i := 0; i < len(src); {
		c := src[i]
		if c < 0x80 {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, n := runeAt(src, i)
		switch {
		case r == 0x0130:
			dst = append(dst, 'i', 0x0307)
		case r == 0x03A3:
			if finalSigma(src, i) {
				dst = append(dst, 0x03C2)
			} else {
				dst = append(dst, 0x03C3)
			}
		case r >= surrogateMin && r <= surrogateMax:
			dst = append(dst, c)
		default:
			dst = appendRune(dst, lowerRune(r))
		}
		i += n
	}
	return dst
}
