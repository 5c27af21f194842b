#ifndef GTM_APP_H
#define GTM_APP_H

int app_main(int argc, char **argv);

#endif
