"""digits: a handwritten-digit classifier, trained once per replica in ``__setup__``, served by ``__predict__``.

The model is a support vector classifier (scikit-learn), calibrated for probabilities, trained on the first 1500 of the 1797
8x8 digit images that ship with scikit-learn (no download); the other 297 are held out, and its
accuracy on them is printed in the logs when a replica starts.

Input:
    pixels   the image: 64 numbers from 0 (white) to 16 (black), row by row, as scikit-learn's
             ``load_digits().data`` rows (a list of 8 rows of 8 is taken too)

Output: one dict
    digit        the digit recognised, 0 to 9
    confidence   the model's probability for it, 0 to 1

    npx sluice deploy examples/digits
"""

import numpy as np
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import load_digits
from sklearn.svm import SVC

import sluice

TRAINING_IMAGES = 1500


@sluice.function(
    name="digits",
    title="Digit classifier",
    description="Recognises a handwritten digit in an 8x8 image; the model is trained in __setup__ (scikit-learn).",
    tags=["example", "ml"],
    python_packages=["scikit-learn"],
    readme="# digits\n\nPush `pixels`, 64 numbers from 0 to 16 (an 8x8 image, row by row); get the `digit` and the model's `confidence`.\n",
)
class Digits:
    def __setup__(self):
        """Runs once when a replica starts: every job it then serves uses the same model."""
        digits = load_digits()
        # Calibration turns the SVC's margins into probabilities (the confidence in each answer).
        self.model = CalibratedClassifierCV(SVC(gamma=0.001), ensemble=False)
        self.model.fit(digits.data[:TRAINING_IMAGES], digits.target[:TRAINING_IMAGES])
        accuracy = self.model.score(digits.data[TRAINING_IMAGES:], digits.target[TRAINING_IMAGES:])
        print(f"digits: trained on {TRAINING_IMAGES} images, {accuracy:.1%} right on the {len(digits.data) - TRAINING_IMAGES} held out")

    def __predict__(self, pixels: list) -> dict:
        """Recognise one digit.

        :param pixels: 64 numbers from 0 to 16, the 8x8 image row by row
        :return: digit and confidence
        """
        image = np.asarray(pixels, dtype=float).reshape(-1)
        if image.size != 64 or not np.all((image >= 0) & (image <= 16)):
            raise ValueError("pixels must be 64 numbers from 0 to 16 (an 8x8 image, row by row)")
        probabilities = self.model.predict_proba([image])[0]
        best = int(np.argmax(probabilities))
        return {"digit": int(self.model.classes_[best]), "confidence": round(float(probabilities[best]), 4)}


if __name__ == "__main__":
    # Runs without the service: set up once, then predict like the service does.
    model = Digits()
    model.__setup__()
    sample = load_digits()
    print(model.__predict__(sample.data[-1].tolist()), "expected", sample.target[-1])
