/* A minimal FMI 2.0 co-simulation master in C (no FMI headers needed): loads an FMU's
 * binary, sets one real input on a schedule, steps it and prints one real output.
 *
 *   fmu_host BINARY GUID RESOURCE_URI VR_IN VR_OUT STEP NSTEPS [T:V ...]
 *
 * prints "t value" after initialisation and after every step, then "end" on stderr when
 * the instance is freed; exit 1 on any error. */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

typedef void *fmi2Component;
typedef unsigned int fmi2ValueReference;
typedef double fmi2Real;
typedef int fmi2Boolean;
typedef int fmi2Status;
typedef struct {
    void (*logger)(void *, const char *, fmi2Status, const char *, const char *, ...);
    void *(*allocateMemory)(size_t, size_t);
    void (*freeMemory)(void *);
    void (*stepFinished)(void *, fmi2Status);
    void *componentEnvironment;
} fmi2CallbackFunctions;

static void logger(void *env, const char *name, fmi2Status status, const char *category,
                   const char *message, ...) {
    va_list args;
    va_start(args, message);
    fprintf(stderr, "[%s %d] ", category, status);
    vfprintf(stderr, message, args);
    fprintf(stderr, "\n");
    va_end(args);
}

typedef fmi2Component (*Instantiate)(const char *, int, const char *, const char *,
                                     const fmi2CallbackFunctions *, fmi2Boolean, fmi2Boolean);
typedef fmi2Status (*Setup)(fmi2Component, fmi2Boolean, fmi2Real, fmi2Real, fmi2Boolean,
                            fmi2Real);
typedef fmi2Status (*Mode)(fmi2Component);
typedef fmi2Status (*SetReal)(fmi2Component, const fmi2ValueReference *, size_t,
                              const fmi2Real *);
typedef fmi2Status (*GetReal)(fmi2Component, const fmi2ValueReference *, size_t, fmi2Real *);
typedef fmi2Status (*DoStep)(fmi2Component, fmi2Real, fmi2Real, fmi2Boolean);
typedef void (*Free)(fmi2Component);

#define LOAD(type, name) type name = (type)dlsym(lib, #name); \
    if (!name) { fprintf(stderr, "missing %s\n", #name); return 1; }
#define CHECK(call) if ((call) != 0) { fprintf(stderr, "failed: %s\n", #call); return 1; }

int main(int argc, char **argv) {
    if (argc < 8) { fprintf(stderr, "usage: see the source\n"); return 2; }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 1; }
    LOAD(Instantiate, fmi2Instantiate)
    LOAD(Setup, fmi2SetupExperiment)
    LOAD(Mode, fmi2EnterInitializationMode)
    LOAD(Mode, fmi2ExitInitializationMode)
    LOAD(SetReal, fmi2SetReal)
    LOAD(GetReal, fmi2GetReal)
    LOAD(DoStep, fmi2DoStep)
    LOAD(Mode, fmi2Terminate)
    LOAD(Free, fmi2FreeInstance)

    fmi2CallbackFunctions callbacks = {logger, calloc, free, NULL, NULL};
    fmi2Component c = fmi2Instantiate("host", 1 /* co-simulation */, argv[2], argv[3],
                                      &callbacks, 0, 0);
    if (!c) { fprintf(stderr, "fmi2Instantiate failed\n"); return 1; }
    fmi2ValueReference vr_in = (fmi2ValueReference)atoi(argv[4]);
    fmi2ValueReference vr_out = (fmi2ValueReference)atoi(argv[5]);
    double h = atof(argv[6]);
    int n = atoi(argv[7]);
    double stop = n * h;
    CHECK(fmi2SetupExperiment(c, 1, 1e-9, 0.0, 1, stop))
    CHECK(fmi2EnterInitializationMode(c))
    CHECK(fmi2ExitInitializationMode(c))
    fmi2Real y;
    CHECK(fmi2GetReal(c, &vr_out, 1, &y))
    printf("%.17g %.17g\n", 0.0, y);
    for (int k = 0; k < n; k++) {
        double t = k * h;
        for (int a = 8; a < argc; a++) {          /* schedule: T:V sets V at T */
            double ta, va;
            if (sscanf(argv[a], "%lf:%lf", &ta, &va) == 2 && ta > t - h / 2 && ta < t + h / 2)
                CHECK(fmi2SetReal(c, &vr_in, 1, &va))
        }
        CHECK(fmi2DoStep(c, t, h, 1))
        CHECK(fmi2GetReal(c, &vr_out, 1, &y))
        printf("%.17g %.17g\n", (k + 1) * h, y);
    }
    CHECK(fmi2Terminate(c))
    fmi2FreeInstance(c);
    fprintf(stderr, "end\n");
    return 0;
}
