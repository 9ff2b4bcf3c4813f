package org.cyverse.mesa.egress.injector;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Every place of a request where a sentinel or a real secret may be carried, each in every
 * spelling the upstream would read: header names and values as sent, header values
 * percent-decoded (a URL in {@code Referer} or a cookie), Basic credentials decoded, the path and
 * the query as sent and percent-decoded, and the destination host (a secret as a subdomain label
 * is a classic exfiltration channel).
 */
final class RequestPlaces {

    /** How a place's text is compared. */
    enum Form {
        /** Text as sent. */
        CHARS,
        /** Decoded bytes, one char per byte. */
        BYTES,
        /** A canonical host name: lowercase, so compared without case. */
        HOST
    }

    /**
     * @param label where, for a refusal's detail: never quotes content that might hold a value
     * @param code the audit record's {@code place}: {@code host}, {@code method}, {@code header}, {@code path}, {@code query},
     *     {@code trailer}
     */
    record Place(String label, String text, Form form, String code) {}

    /** A value searched for: as text, and as the UTF-8 bytes that decoded places hold. */
    record Needle(String text, String bytes, String lower) {
        static Needle of(String value) {
            return new Needle(value, PercentText.bytes(value), value.toLowerCase(Locale.ROOT));
        }

        boolean in(Place place) {
            switch (place.form()) {
                case BYTES:
                    return place.text().contains(bytes);
                case HOST:
                    return place.text().contains(lower);
                default:
                    return place.text().contains(text) || place.text().contains(bytes);
            }
        }
    }

    private RequestPlaces() {}

    /** The places of {@code request}, header names first so that a label naming a header is checked before it is used. */
    static List<Place> of(OutgoingRequest request) {
        List<Place> places = new ArrayList<>();
        places.add(new Place("the destination host name", request.destination().host(), Form.HOST, "host"));
        places.add(new Place("the method", request.method(), Form.CHARS, "method"));
        addFields(places, request.headers(), "header", "header");
        String pathAndQuery = request.pathAndQuery();
        String path = path(pathAndQuery);
        places.add(new Place("the path", path, Form.CHARS, "path"));
        places.add(new Place("the path (percent-decoded)", PercentText.of(path).decoded(), Form.BYTES, "path"));
        if (path.length() < pathAndQuery.length()) {
            String query = pathAndQuery.substring(path.length() + 1);
            places.add(new Place("the query", query, Form.CHARS, "query"));
            places.add(new Place("the query (percent-decoded)", PercentText.of(query).decoded(), Form.BYTES, "query"));
        }
        return places;
    }

    /** The places of a chunked request's trailer fields (code {@code trailer}), names first as for headers. */
    static List<Place> ofTrailers(List<Map.Entry<String, String>> fields) {
        List<Place> places = new ArrayList<>();
        addFields(places, fields, "trailer", "trailer field");
        return places;
    }

    private static void addFields(List<Place> places, List<Map.Entry<String, String>> fields, String code, String kind) {
        for (Map.Entry<String, String> field : fields) {
            places.add(new Place("a " + kind + " name", field.getKey(), Form.CHARS, code));
        }
        for (Map.Entry<String, String> field : fields) {
            String where = kind + " " + shortName(field.getKey());
            String value = field.getValue();
            places.add(new Place(where, value, Form.CHARS, code));
            if (value.indexOf('%') >= 0) {
                places.add(new Place(where + " (percent-decoded)", PercentText.of(value).decoded(), Form.BYTES, code));
            }
            BasicCredentials basic = BasicCredentials.parse(value);
            if (basic != null) {
                places.add(new Place(where + " (Basic credentials)", basic.decoded(), Form.BYTES, code));
            }
        }
    }

    /** The path without the query, as scopes match it. */
    static String path(String pathAndQuery) {
        int q = pathAndQuery.indexOf('?');
        return q < 0 ? pathAndQuery : pathAndQuery.substring(0, q);
    }

    private static String shortName(String name) {
        return name.length() <= 64 ? name : name.substring(0, 64) + "...";
    }
}
