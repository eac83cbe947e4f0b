"""image-thumbnail: a JPEG thumbnail of an image, optionally blurred or in greyscale, with Pillow.

Inputs:
    image      an image Pillow reads (JPEG, PNG, WebP, GIF, BMP, TIFF, ...); a camera's EXIF
               orientation is applied, transparency is laid over white
    size       the longest side of the thumbnail in pixels, 16 to 4096 (default 256); the
               aspect ratio is kept, and an image already smaller is not enlarged
    blur       the radius of a Gaussian blur in pixels, 0 for none (default 0)
    greyscale  whether to drop the colour (default false)

Output: the thumbnail, a JPEG ``sluice.File`` named ``thumbnail.jpg``

    npx sluice deploy examples/image
"""

import os
import tempfile

from PIL import Image, ImageFilter, ImageOps

import sluice


@sluice.function(
    name="image-thumbnail",
    title="Image thumbnail",
    description="A JPEG thumbnail of an image, optionally blurred or in greyscale (Pillow).",
    tags=["example", "image"],
    python_packages=["pillow"],
    readme="# image-thumbnail\n\nShrinks `image` to fit `size` pixels, keeping its aspect ratio, and returns a JPEG.\n",
)
def image_thumbnail(image: sluice.File, size: int = 256, blur: float = 0.0, greyscale: bool = False) -> sluice.File:
    """A thumbnail of an image.

    :param image: the image to shrink
    :param size: the thumbnail's longest side in pixels (16 to 4096)
    :param blur: Gaussian blur radius in pixels, 0 for none
    :param greyscale: drop the colour
    :return: the thumbnail as a JPEG file
    """
    if not 16 <= size <= 4096:
        raise ValueError(f"size must be between 16 and 4096 (got {size})")
    if not 0 <= blur <= 100:
        raise ValueError(f"blur must be between 0 and 100 (got {blur})")
    with Image.open(image.path) as opened:
        picture = _on_white(ImageOps.exif_transpose(opened))
    picture.thumbnail((size, size), Image.Resampling.LANCZOS)
    if blur > 0:
        picture = picture.filter(ImageFilter.GaussianBlur(blur))
    if greyscale:
        picture = picture.convert("L")
    path = os.path.join(tempfile.mkdtemp(), "thumbnail.jpg")
    picture.save(path, "JPEG", quality=88)
    return sluice.File(path)


def _on_white(picture: Image.Image) -> Image.Image:
    """RGB for JPEG: transparent parts become white rather than black."""
    if picture.mode in ("RGBA", "LA") or (picture.mode == "P" and "transparency" in picture.info):
        rgba = picture.convert("RGBA")
        background = Image.new("RGB", rgba.size, (255, 255, 255))
        background.paste(rgba, mask=rgba.getchannel("A"))
        return background
    return picture.convert("RGB")


if __name__ == "__main__":
    # Runs without the service: python examples/image/main.py photo.jpg
    import sys

    print(image_thumbnail(sluice.File(sys.argv[1]), size=128).path)
