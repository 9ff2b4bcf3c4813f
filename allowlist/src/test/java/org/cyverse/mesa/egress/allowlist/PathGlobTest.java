package org.cyverse.mesa.egress.allowlist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PathGlobTest {

    @ParameterizedTest(name = "{0}: {1} vs {2} = {3}")
    @CsvSource(delimiter = '|', value = {
        "prefix glob takes a child           | /api/**          | /api/v1/users         | true",
        "prefix glob takes the bare prefix   | /api/**          | /api                  | true",
        "prefix glob takes a trailing slash  | /api/**          | /api/                 | true",
        "prefix glob not a longer segment    | /api/**          | /apix/v1              | false",
        "prefix glob not another tree        | /api/**          | /admin                | false",
        "star within one segment             | /repos/*/pulls   | /repos/mesa/pulls     | true",
        "star not across segments            | /repos/*/pulls   | /repos/a/b/pulls      | false",
        "star with literal around it         | /files/*.txt     | /files/notes.txt      | true",
        "star with literal mismatch          | /files/*.txt     | /files/notes.txt.exe  | false",
        "star takes an empty last segment    | /api/*           | /api/                 | true",
        "double star in the middle           | /a/**/z          | /a/b/c/d/z            | true",
        "double star in the middle, none     | /a/**/z          | /a/z                  | true",
        "double star in the middle, no end   | /a/**/z          | /a/b/c                | false",
        "two double stars                    | /**/x/**         | /a/b/x/c              | true",
        "root glob takes everything          | /**              | /anything/at/all      | true",
        "exact path                          | /healthz         | /healthz              | true",
        "exact path is case-sensitive        | /healthz         | /HEALTHZ              | false",
        "exact path not a child              | /healthz         | /healthz/x            | false",
        "root only                           | /                | /                     | true",
        "dot segments resolved inside        | /api/**          | /api/v1/../v2         | true",
        "single dot removed                  | /api/**          | /./api/./v1           | true",
        "dot-dot escapes the prefix          | /api/**          | /api/../admin         | false",
        "dot-dot escape lands on target      | /admin/**        | /api/../admin/x       | true",
        "dot-dot above root stays at root    | /admin           | /../../admin          | true",
        "encoded dot-dot is ambiguous        | /api/**          | /api/%2e%2e/admin     | false",
        "encoded dot-dot uppercase           | /api/**          | /api/%2E%2E/admin     | false",
        "half-encoded dot-dot                | /api/**          | /api/.%2e/admin       | false",
        "encoded single dot                  | /api/**          | /api/%2e/v1           | false",
        "encoded slash                       | /api/**          | /api%2fadmin          | false",
        "encoded slash inside prefix         | /api/**          | /api/v1%2F..%2F..%2Fadmin | false",
        "encoded backslash                   | /api/**          | /api/..%5cadmin       | false",
        "backslash                           | /api/**          | /api/..\\admin        | false",
        "dot-dot with path parameter         | /api/**          | /api/..;/admin        | false",
        "dot-dot with encoded semicolon      | /api/**          | /api/..%3b/admin      | false",
        "double encoding                     | /api/**          | /api/%252e%252e/admin | false",
        "empty segment                       | /api/**          | /api//../admin        | false",
        "encoded unreserved letters decoded  | /admin/**        | /%61dmin/x            | true",
        "encoded tilde decoded               | /~user           | /%7Euser              | true",
        "other encodings kept                | /a/*             | /a/b%20c              | true",
        "malformed percent                   | /api/**          | /api/%zz              | false",
        "truncated percent                   | /api/**          | /api/%2               | false",
        "query mark is not a path            | /api/**          | /api/x?y              | false",
        "fragment is not a path              | /api/**          | /api/x#y              | false",
        "relative path                       | /api/**          | api/x                 | false",
        "absolute URI is not a path          | /**              | http://h/x            | false",
        "non-ASCII byte                      | /api/**          | /api/é                | false",
    })
    void matches(String name, String glob, String path, boolean expected) {
        assertEquals(expected, PathGlob.parse(glob).matches(path));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiter = '|', value = {
        "no leading slash        | api/**",
        "empty                   | ''",
        "double star in segment  | /api/x**",
        "dot segment             | /api/../x",
        "empty segment           | /api//x",
        "percent                 | /api/%2e",
        "question mark           | /api?x",
        "backslash               | /api\\x",
    })
    void refuses(String name, String glob) {
        assertThrows(IllegalArgumentException.class, () -> PathGlob.parse(glob));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "dot-dot                 | /a/b/../c   | /a/c",
        "dot-dot at end          | /a/b/..     | /a/",
        "dot at end              | /a/.        | /a/",
        "above root              | /../a       | /a",
        "decode unreserved       | /%41%7e     | /A~",
        "uppercase other hex     | /a%3fb      | /a%3Fb",
    })
    void normalizes(String name, String path, String normalized) {
        assertEquals(normalized, PathNormalizer.normalize(path));
    }
}
