/* Colormaps. Viridis is interpolated between its nine published class colours; turbo uses Google's
 * published degree-5 polynomial fit, which is within a few levels of the table everywhere. */
#include <math.h>

#include "render/internal.h"

static const uint8_t k_viridis[9][3] = {
    {68, 1, 84},   {71, 44, 122},  {59, 81, 139}, {44, 113, 142}, {33, 144, 141},
    {39, 173, 129}, {92, 200, 99}, {170, 220, 50}, {253, 231, 37}};

static float poly5(const float c[6], float t) {
    return c[0] + t * (c[1] + t * (c[2] + t * (c[3] + t * (c[4] + t * c[5]))));
}

void loam_colormap_eval(loam_colormap map, float t, uint8_t rgb[3]) {
    if (!rgb) return;
    if (isnan(t)) {
        rgb[0] = rgb[1] = rgb[2] = 128;
        return;
    }
    t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
    if (map == LOAM_COLORMAP_TURBO) {
        static const float kr[6] = {0.13572138f, 4.61539260f, -42.66032258f, 132.13108234f,
                                    -152.94239396f, 59.28637943f};
        static const float kg[6] = {0.09140261f, 2.19418839f, 4.84296658f, -14.18503333f,
                                    4.27729857f, 2.82956604f};
        static const float kb[6] = {0.10667330f, 12.64194608f, -60.58204836f, 110.36276771f,
                                    -89.90310912f, 27.34824973f};
        rgb[0] = render_byte(255.0f * poly5(kr, t));
        rgb[1] = render_byte(255.0f * poly5(kg, t));
        rgb[2] = render_byte(255.0f * poly5(kb, t));
        return;
    }
    float x = t * 8.0f;
    int i = (int)x;
    if (i > 7) i = 7;
    float f = x - (float)i;
    for (int k = 0; k < 3; ++k)
        rgb[k] = render_byte((1.0f - f) * (float)k_viridis[i][k] + f * (float)k_viridis[i + 1][k]);
}
