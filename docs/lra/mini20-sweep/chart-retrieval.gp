# chart-retrieval.svg and chart-retrieval.png, written by attnzoo; rerun with `gnuplot chart-retrieval.gp` in this folder.
$f0 << EOD
"full" 0.4564 53.9049 7 0.112298
"flash" 1.2127 53.9049 1.61669 0.112298
EOD
$f1 << EOD
"bigbird" 3.075 54.2869 2.1789 1.14207
"global" 10.7856 59.9604 1.61575 1.71906
"local" 6.4343 55.0509 1.76569 2.12054
"longformer" 5.9459 53.8059 1.77338 1.01276
"strided" 9.4747 53.5654 1.68543 1.0838
EOD
$f2 << EOD
"compressed" 2.1954 50.7499 1.65828 0.577832
"efficient" 7.3974 52.3911 1.60353 1.9097
"linear" 8.9409 51.1602 1.60447 1.10791
"linformer" 4.3127 50.1698 1.86854 0.306074
"performer" 8.6862 52.3628 1.82677 1.27923
"rfa" 3.8859 50.6791 2.14671 0.588133
"synthesizer" 0.7532 50.8489 1.68319 0.683085
EOD
$f3 << EOD
"fnet" 12.436 49.8019 1.39779 0.272882
"gmlp" 0.5856 49.2784 3.29274 0.683085
"mixer" 14.4824 50.382 1.47728 0.556659
EOD
$f4 << EOD
"reformer" 2.4818 52.0939 1.9303 2.18141
"routing" 3.6191 52.4618 1.67055 1.36155
"sinkhorn" 6.5228 50.1132 1.83998 1.34647
"reformer+lra" 2.9069 53.7776 1.6302 2.27822
EOD

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart-retrieval.svg'
set title "Retrieval on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "test accuracy (%): Retrieval"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.253556:26.0683]
set yrange [45.5954:64.6794]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4564,53.9049 center offset char 0,2.16 front
set label 2 "bigbird" at 3.075,54.2869 center offset char 4.87156,0 front
set label 3 "compressed" at 2.1954,50.7499 center offset char -6.16331,0 front
set label 4 "efficient" at 7.3974,52.3911 center offset char -5.64141,0 front
set label 5 "flash" at 1.2127,53.9049 center offset char 0,1.01156 front
set label 6 "fnet" at 12.436,49.8019 center offset char 0,0.964863 front
set label 7 "global" at 10.7856,59.9604 center offset char 0,1.01136 front
set label 8 "gmlp" at 0.5856,49.2784 center offset char 0,1.36912 front
set label 9 "linear" at 8.9409,51.1602 center offset char 0,-1.00895 front
set label 10 "linformer" at 4.3127,50.1698 center offset char 0,-1.06529 front
set label 11 "local" at 6.4343,55.0509 center offset char 0,1.04335 front
set label 12 "longformer" at 5.9459,53.8059 center offset char 0,-1.04499 front
set label 13 "mixer" at 14.4824,50.382 center offset char 0,0.981819 front
set label 14 "performer" at 8.6862,52.3628 center offset char 5.73071,-1.05638 front
set label 15 "reformer" at 2.4818,52.0939 center offset char -5.27212,0 front
set label 16 "rfa" at 3.8859,50.6791 center offset char -2.85868,0 front
set label 17 "routing" at 3.6191,52.4618 center offset char 0,1.02305 front
set label 18 "sinkhorn" at 6.5228,50.1132 center offset char 5.23599,-1.0592 front
set label 19 "strided" at 9.4747,53.5654 center offset char 0,1.02623 front
set label 20 "synthesizer" at 0.7532,50.8489 center offset char 0,1.02575 front
set label 21 "reformer+lra" at 2.9069,53.7776 center offset char -7.15208,0 front
set arrow from graph 0, first 50 to graph 1, first 50 nohead dt 2 lc rgb '#888888'
set label 22 "chance (majority class)" at graph 0.01, first 50 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#1f77b4' notitle, \
     $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#701f77b4' title "dense", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#1f77b4' notitle, \
     $f1 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#2ca02c' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#702ca02c' title "fixed", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#2ca02c' notitle, \
     $f2 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#9467bd' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f3 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#8c564b' notitle, \
     $f3 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f3 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle, \
     $f4 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#ff7f0e' notitle, \
     $f4 using 2:3:4 with points pt 7 ps variable lc rgb '#70ff7f0e' title "learned", $f4 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#ff7f0e' notitle

unset output
set terminal pngcairo size 1100,650 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'chart-retrieval.png'
set title "Retrieval on this CPU (preset mini)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "test accuracy (%): Retrieval"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.253556:26.0683]
set yrange [45.5954:64.6794]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full" at 0.4564,53.9049 center offset char 0,2.16 front
set label 2 "bigbird" at 3.075,54.2869 center offset char 4.87156,0 front
set label 3 "compressed" at 2.1954,50.7499 center offset char -6.16331,0 front
set label 4 "efficient" at 7.3974,52.3911 center offset char -5.64141,0 front
set label 5 "flash" at 1.2127,53.9049 center offset char 0,1.01156 front
set label 6 "fnet" at 12.436,49.8019 center offset char 0,0.964863 front
set label 7 "global" at 10.7856,59.9604 center offset char 0,1.01136 front
set label 8 "gmlp" at 0.5856,49.2784 center offset char 0,1.36912 front
set label 9 "linear" at 8.9409,51.1602 center offset char 0,-1.00895 front
set label 10 "linformer" at 4.3127,50.1698 center offset char 0,-1.06529 front
set label 11 "local" at 6.4343,55.0509 center offset char 0,1.04335 front
set label 12 "longformer" at 5.9459,53.8059 center offset char 0,-1.04499 front
set label 13 "mixer" at 14.4824,50.382 center offset char 0,0.981819 front
set label 14 "performer" at 8.6862,52.3628 center offset char 5.73071,-1.05638 front
set label 15 "reformer" at 2.4818,52.0939 center offset char -5.27212,0 front
set label 16 "rfa" at 3.8859,50.6791 center offset char -2.85868,0 front
set label 17 "routing" at 3.6191,52.4618 center offset char 0,1.02305 front
set label 18 "sinkhorn" at 6.5228,50.1132 center offset char 5.23599,-1.0592 front
set label 19 "strided" at 9.4747,53.5654 center offset char 0,1.02623 front
set label 20 "synthesizer" at 0.7532,50.8489 center offset char 0,1.02575 front
set label 21 "reformer+lra" at 2.9069,53.7776 center offset char -7.15208,0 front
set arrow from graph 0, first 50 to graph 1, first 50 nohead dt 2 lc rgb '#888888'
set label 22 "chance (majority class)" at graph 0.01, first 50 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#1f77b4' notitle, \
     $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#701f77b4' title "dense", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#1f77b4' notitle, \
     $f1 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#2ca02c' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#702ca02c' title "fixed", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#2ca02c' notitle, \
     $f2 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#9467bd' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f3 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#8c564b' notitle, \
     $f3 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f3 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle, \
     $f4 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#ff7f0e' notitle, \
     $f4 using 2:3:4 with points pt 7 ps variable lc rgb '#70ff7f0e' title "learned", $f4 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#ff7f0e' notitle

unset output
