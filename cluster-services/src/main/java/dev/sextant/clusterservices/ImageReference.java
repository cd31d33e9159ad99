package dev.sextant.clusterservices;

import java.util.regex.Pattern;

/**
 * Container images are pinned by digest ({@code name@sha256:<64 hex>}): a tag can be moved to other
 * bytes by whoever controls the registry, after the operator reviewed what the tag named. The
 * services hold the cluster's master secret and hand out disk keys, so what runs there must be
 * exactly what was reviewed.
 */
public final class ImageReference {
    private static final Pattern BY_DIGEST = Pattern.compile("[a-z0-9][a-z0-9._/:-]*@sha256:[0-9a-f]{64}");

    private ImageReference() {
    }

    /**
     * @param what which image this is, for the message ("the KMS image")
     * @return the image, when it is pinned by digest
     * @throws IllegalArgumentException naming the image and how to get its digest
     */
    public static String requireDigest(String image, String what) {
        if (image == null || image.isBlank()) {
            throw new IllegalArgumentException(what + " is empty");
        }
        if (!BY_DIGEST.matcher(image).matches()) {
            throw new IllegalArgumentException(what + " '" + image + "' is not pinned by digest: give it as "
                    + "NAME@sha256:<64 hex digits> (the digest of a pushed image: `docker buildx imagetools inspect "
                    + image + "` or `crane digest " + image + "`)");
        }
        return image;
    }
}
